#include "flotilla/io/fs/http_file.h"

#include <curl/curl.h>

#include <cstring>
#include <mutex>

namespace flotilla::io {

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Body {
  std::string bytes;
  int64_t limit;  // stop a server that ignores the range from sending the whole file
};

size_t OnData(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<Body*>(user);
  const size_t bytes = size * n;
  if (static_cast<int64_t>(body->bytes.size() + bytes) > body->limit) return 0;
  body->bytes.append(data, bytes);
  return bytes;
}

struct Easy {
  CURL* handle = curl_easy_init();
  curl_slist* headers = nullptr;
  ~Easy() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(handle);
  }
};

Status CurlError(const std::string& url, CURLcode code, const char* what) {
  return Status::IOError(std::string(what) + " '" + url + "' failed: " + curl_easy_strerror(code));
}

void Common(CURL* h, const std::string& url) {
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
  // A stalled server must not hang a query: abort below 1 byte/s for 60 s.
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
}

class HttpFile final : public RandomAccessFile {
 public:
  HttpFile(std::string url, int64_t size) : RandomAccessFile(std::move(url)), size_(size) {}
  int64_t size() const override { return size_; }

 protected:
  Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
    if (length == 0) return Buffer::Allocate(0);
    Easy easy;
    if (easy.handle == nullptr) return Status::IOError("curl_easy_init failed");
    Common(easy.handle, name());
    const std::string range = std::to_string(offset) + "-" + std::to_string(offset + length - 1);
    curl_easy_setopt(easy.handle, CURLOPT_RANGE, range.c_str());
    Body body{{}, length};
    bool whole = false;
    curl_easy_setopt(easy.handle, CURLOPT_WRITEFUNCTION, OnData);
    curl_easy_setopt(easy.handle, CURLOPT_WRITEDATA, &body);
    CURLcode rc = curl_easy_perform(easy.handle);
    long status = 0;
    curl_easy_getinfo(easy.handle, CURLINFO_RESPONSE_CODE, &status);
    if (rc == CURLE_WRITE_ERROR && status == 200) whole = true;  // range ignored: fall back
    if (whole) {
      Easy again;
      Common(again.handle, name());
      body = Body{{}, size_};
      curl_easy_setopt(again.handle, CURLOPT_WRITEFUNCTION, OnData);
      curl_easy_setopt(again.handle, CURLOPT_WRITEDATA, &body);
      rc = curl_easy_perform(again.handle);
      curl_easy_getinfo(again.handle, CURLINFO_RESPONSE_CODE, &status);
      if (rc != CURLE_OK) return CurlError(name(), rc, "GET");
      if (static_cast<int64_t>(body.bytes.size()) < offset + length)
        return Status::IOError("GET '" + name() + "' returned fewer bytes than its size");
      body.bytes = body.bytes.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
    } else {
      if (rc != CURLE_OK) return CurlError(name(), rc, "GET");
      if (status != 206 && status != 200)
        return Status::IOError("GET '" + name() + "' bytes " + range + ": HTTP status " +
                               std::to_string(status));
      if (status == 200 && static_cast<int64_t>(body.bytes.size()) == size_ && offset > 0)
        body.bytes = body.bytes.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
    }
    if (static_cast<int64_t>(body.bytes.size()) != length)
      return Status::IOError("GET '" + name() + "' bytes " + range + " returned " +
                             std::to_string(body.bytes.size()) + " bytes");
    return Buffer::CopyOf(body.bytes);
  }

 private:
  int64_t size_;
};

}  // namespace

Result<std::shared_ptr<RandomAccessFile>> OpenHttpFile(const std::string& url) {
  GlobalInit();
  Easy easy;
  if (easy.handle == nullptr) return Status::IOError("curl_easy_init failed");
  Common(easy.handle, url);
  curl_easy_setopt(easy.handle, CURLOPT_NOBODY, 1L);
  const CURLcode rc = curl_easy_perform(easy.handle);
  if (rc != CURLE_OK) return CurlError(url, rc, "HEAD");
  long status = 0;
  curl_easy_getinfo(easy.handle, CURLINFO_RESPONSE_CODE, &status);
  if (status == 404) return Status::IOError("'" + url + "' not found (HTTP 404)");
  if (status < 200 || status >= 300)
    return Status::IOError("HEAD '" + url + "': HTTP status " + std::to_string(status));
  curl_off_t length = -1;
  curl_easy_getinfo(easy.handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  if (length < 0) return Status::IOError("HEAD '" + url + "' gave no Content-Length");
  return std::shared_ptr<RandomAccessFile>(std::make_shared<HttpFile>(url, length));
}

}  // namespace flotilla::io
