// The C++ client 2.x's sharding-key queue selection, as a filter: each input line is "N HEX" (a queue count and
// the key's bytes in hex); each output line is the index the client's selector picks for it. The key reaches
// the selector as a C string (the client's C API takes a char*), so it ends at its first NUL byte, and is hashed
// with this compiler's std::hash<std::string>. Ours, built by tests/test_profile_cpp.py with g++.
#include <cstddef>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::size_t n = 0;
    std::string hex;
    in >> n >> hex;
    std::vector<char> bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    bytes.push_back('\0');
    const std::string key(bytes.data());  // a C string: up to the first NUL
    std::cout << std::hash<std::string>{}(key) % n << '\n';
  }
  return 0;
}
