#include <cstdio>

int main(int argc, char** argv) {
  std::puts("flotilla");
  return 0;
}
