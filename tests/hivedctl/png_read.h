// SPDX-License-Identifier: GPL-2.0-or-later
// Just enough PNG to look at a browser's screenshot: 8-bit RGB or RGBA, not
// interlaced, with its own inflate (no zlib needed to build the tests).
#ifndef HIVEDCTL_PNG_READ_H
#define HIVEDCTL_PNG_READ_H

#include <cstdint>
#include <string>
#include <vector>

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
};

bool PngRead(const std::string& data, Image* out, std::string* err);

// RFC 1951 raw deflate stream -> bytes. False on a malformed stream.
bool Inflate(const uint8_t* in, size_t len, std::vector<uint8_t>* out);

#endif
