// The image functions on hand-built pixels: lossless round trips, hand-computed resampling and
// channel conversions, and bad input (not an image, a header claiming a huge image, sizes that
// do not match) named by row or turned into nulls.
#include <gtest/gtest.h>

#include "flotilla/expr/functions/function_test_support.h"
#include "flotilla/expr/functions/image_codec.h"
#include "flotilla/expr/functions/image_type.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;

namespace {

Datum Images(const std::vector<std::optional<DecodedImage>>& images) {
  ImageBuilder builder;
  for (const auto& image : images) {
    if (!image) {
      builder.AppendNull().Check();
    } else {
      builder.Append(image->width, image->height, image->channels, image->pixels).Check();
    }
  }
  return Col(builder.builder()->Finish().ValueOrDie());
}

DecodedImage Gradient(int32_t width, int32_t height, int32_t channels) {
  DecodedImage image{width, height, channels, {}};
  for (int32_t i = 0; i < width * height * channels; ++i)
    image.pixels.push_back(static_cast<char>((i * 37) % 256));
  return image;
}

DecodedImage ImageOf(const Datum& d, int64_t row) {
  auto view = ImageAt(d, row, "test");
  EXPECT_TRUE(view.ok()) << view.status().ToString();
  return {view->width, view->height, view->channels, std::string(view->pixels)};
}

TEST(ImageFunctionsTest, PngRoundTripsEveryChannelCount) {
  for (int32_t channels = 1; channels <= 4; ++channels) {
    const DecodedImage image = Gradient(7, 5, channels);
    auto png = Call("image_encode", {Images({image}), LitS("png")});
    ASSERT_TRUE(png.ok()) << png.status().ToString();
    auto back = Call("image_decode", {Col(png->array())});
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    const DecodedImage decoded = ImageOf(*back, 0);
    EXPECT_EQ(decoded.channels, channels);
    EXPECT_EQ(decoded.width, 7);
    EXPECT_EQ(decoded.pixels, image.pixels);
  }
}

TEST(ImageFunctionsTest, LossyFormatsKeepTheShape) {
  const DecodedImage image = Gradient(16, 9, 3);
  for (const char* format : {"jpeg", "webp"}) {
    auto bytes = Call("image_encode", {Images({image}), LitS(format), LitI(95)});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto back = Call("image_decode", {Col(bytes->array()), LitS("RGB")});
    ASSERT_TRUE(back.ok()) << format << ": " << back.status().ToString();
    const DecodedImage decoded = ImageOf(*back, 0);
    EXPECT_EQ(decoded.width, 16);
    EXPECT_EQ(decoded.height, 9);
    EXPECT_EQ(decoded.pixels.size(), image.pixels.size());
  }
  EXPECT_FALSE(Call("image_encode", {Images({image}), LitS("gif")}).ok());
}

TEST(ImageFunctionsTest, ModesConvertByLuma) {
  // Red, green, blue and white pixels to grey: ITU-R 601-2 (0.299, 0.587, 0.114), rounded.
  const DecodedImage rgb{4, 1, 3, std::string("\xFF\0\0\0\xFF\0\0\0\xFF\xFF\xFF\xFF", 12)};
  EXPECT_EQ(ConvertChannels({4, 1, 3, rgb.pixels}, 1), std::string("\x4C\x96\x1D\xFF", 4));
  EXPECT_EQ(ConvertChannels({1, 1, 1, "\x10"}, 4), "\x10\x10\x10\xFF");
  EXPECT_EQ(ConvertChannels({1, 1, 2, "\x10\x80"}, 4), "\x10\x10\x10\x80");
}

TEST(ImageFunctionsTest, ResizeAveragesWhenShrinkingAndStretchesWhenGrowing) {
  // 2 x 1 grey [0, 255] to 1 x 1: both pixels weigh the same, 127.5 rounds to 128.
  auto shrunk = Call("image_resize",
                     {Images({DecodedImage{2, 1, 1, std::string("\0\xFF", 2)}}), LitI(1), LitI(1)});
  ASSERT_TRUE(shrunk.ok()) << shrunk.status().ToString();
  EXPECT_EQ(ImageOf(*shrunk, 0).pixels, "\x80");
  // One pixel grown to 3 x 2 is that pixel everywhere.
  auto grown = Call("image_resize", {Images({DecodedImage{1, 1, 3, "abc"}}), LitI(3), LitI(2)});
  ASSERT_TRUE(grown.ok());
  EXPECT_EQ(ImageOf(*grown, 0).pixels, "abcabcabcabcabcabc");
  EXPECT_FALSE(Call("image_resize", {Images({Gradient(2, 2, 1)}), LitI(0), LitI(3)}).ok());
}

TEST(ImageFunctionsTest, ToTensorChecksTheShapeAndConvertsChannels) {
  auto tensors = Call("image_to_tensor",
                      {Images({Gradient(3, 2, 1), std::nullopt}), LitI(2), LitI(3), LitI(3)});
  ASSERT_TRUE(tensors.ok()) << tensors.status().ToString();
  EXPECT_EQ(tensors->array().type()->ToString(), "fixed_size_list<uint8>[18]");
  EXPECT_TRUE(tensors->array().IsNull(1));
  const Array values = tensors->array().ListValues(0);
  // Grey replicated to RGB: pixel 1 is grey 37.
  EXPECT_EQ(values.values<uint8_t>()[3], 37);
  EXPECT_EQ(values.values<uint8_t>()[5], 37);
  auto wrong = Call("image_to_tensor", {Images({Gradient(4, 2, 3)}), LitI(2), LitI(3), LitI(3)});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("row 0 is 4 x 2, not the 3 x 2"), std::string::npos)
      << wrong.status().ToString();
}

TEST(ImageFunctionsTest, BadBytesAreNamedOrNull) {
  // A header claiming 65535 x 65535 pixels is refused before anything is allocated.
  // A 1 x 1 PNG whose header was changed to claim 65535 x 65535 (with the header's CRC fixed).
  const std::string huge(
      "\x89\x50\x4E\x47\x0D\x0A\x1A\x0A\x00\x00\x00\x0D\x49\x48\x44\x52\x00\x00\xFF\xFF\x00"
      "\x00\xFF\xFF\x08\x02\x00\x00\x00\x39\x67\x4E\x07\x00\x00\x00\x0C\x49\x44\x41\x54\x78"
      "\x9C\x63\x60\x60\x60\x00\x00\x00\x04\x00\x01\xF6\x17\x38\x55\x00\x00\x00\x00\x49\x45"
      "\x4E\x44\xAE\x42\x60\x82",
      69);
  const Datum bytes = Col(Strings({"not an image", "\xFF\xD8\xFF\xE0 cut", huge}, binary()));
  auto failed = Call("image_decode", {bytes});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("row 0"), std::string::npos);
  EXPECT_NE(failed.status().message().find("not a JPEG, PNG or WebP"), std::string::npos);
  auto nulls = Call("image_decode", {bytes, LitS(""), LitS("null")});
  ASSERT_TRUE(nulls.ok()) << nulls.status().ToString();
  EXPECT_EQ(nulls->array().null_count(), 3);
  auto too_big = DecodeImage(huge, 0);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("65535 x 65535 pixels, more than the limit"),
            std::string::npos)
      << too_big.status().ToString();
  EXPECT_FALSE(Call("image_decode", {bytes, LitS("CMYK")}).ok());
}

}  // namespace
}  // namespace flotilla::expr::functions
