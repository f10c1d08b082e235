// SPDX-License-Identifier: GPL-2.0-or-later
// A small PNG reader: chunks, a canonical-Huffman inflate, scanline filters.
#include "png_read.h"

#include <cstring>

namespace {

struct Bits {
  const uint8_t* in;
  size_t len, pos = 0;
  uint32_t buf = 0;
  int cnt = 0;
  bool bad = false;

  int Get(int need) {
    uint32_t v = buf;
    while (cnt < need) {
      if (pos >= len) {
        bad = true;
        return 0;
      }
      v |= static_cast<uint32_t>(in[pos++]) << cnt;
      cnt += 8;
    }
    buf = v >> need;
    cnt -= need;
    return static_cast<int>(v & ((1u << need) - 1));
  }
};

// Canonical Huffman code: counts per length and symbols in code order.
struct Huffman {
  uint16_t count[16] = {0};
  uint16_t symbol[320] = {0};

  bool Build(const uint8_t* lengths, int n) {
    memset(count, 0, sizeof(count));
    for (int s = 0; s < n; s++) count[lengths[s]]++;
    uint16_t offs[16];
    offs[1] = 0;
    for (int l = 1; l < 15; l++) offs[l + 1] = offs[l] + count[l];
    for (int s = 0; s < n; s++)
      if (lengths[s]) symbol[offs[lengths[s]]++] = static_cast<uint16_t>(s);
    return true;
  }

  int Decode(Bits& b) const {
    int code = 0, first = 0, index = 0;
    for (int l = 1; l < 16; l++) {
      code |= b.Get(1);
      if (b.bad) return -1;
      int c = count[l];
      if (code - c < first) return symbol[index + (code - first)];
      index += c;
      first = (first + c) << 1;
      code <<= 1;
    }
    return -1;
  }
};

const uint16_t kLenBase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
const uint8_t kLenExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                             2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
const uint16_t kDistBase[] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                              33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                              1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
const uint8_t kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                              6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

bool Codes(Bits& b, const Huffman& lit, const Huffman& dist, std::vector<uint8_t>* out) {
  for (;;) {
    int sym = lit.Decode(b);
    if (sym < 0) return false;
    if (sym < 256) {
      out->push_back(static_cast<uint8_t>(sym));
      continue;
    }
    if (sym == 256) return true;
    sym -= 257;
    if (sym >= 29) return false;
    size_t len = kLenBase[sym] + b.Get(kLenExtra[sym]);
    int d = dist.Decode(b);
    if (d < 0 || d >= 30) return false;
    size_t back = kDistBase[d] + b.Get(kDistExtra[d]);
    if (b.bad || back > out->size()) return false;
    size_t from = out->size() - back;
    for (size_t i = 0; i < len; i++) out->push_back((*out)[from + i]);
  }
}

bool Dynamic(Bits& b, std::vector<uint8_t>* out) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
  int nlen = b.Get(5) + 257, ndist = b.Get(5) + 1, ncode = b.Get(4) + 4;
  if (b.bad || nlen > 286 || ndist > 30) return false;
  uint8_t lengths[320] = {0};
  for (int i = 0; i < ncode; i++) lengths[order[i]] = static_cast<uint8_t>(b.Get(3));
  Huffman code;
  code.Build(lengths, 19);
  memset(lengths, 0, sizeof(lengths));
  for (int i = 0; i < nlen + ndist;) {
    int sym = code.Decode(b);
    if (sym < 0) return false;
    if (sym < 16) {
      lengths[i++] = static_cast<uint8_t>(sym);
      continue;
    }
    int rep, val = 0;
    if (sym == 16) {
      if (!i) return false;
      val = lengths[i - 1];
      rep = 3 + b.Get(2);
    } else if (sym == 17) {
      rep = 3 + b.Get(3);
    } else {
      rep = 11 + b.Get(7);
    }
    if (i + rep > nlen + ndist) return false;
    while (rep--) lengths[i++] = static_cast<uint8_t>(val);
  }
  Huffman lit, dist;
  lit.Build(lengths, nlen);
  dist.Build(lengths + nlen, ndist);
  return Codes(b, lit, dist, out);
}

bool Fixed(Bits& b, std::vector<uint8_t>* out) {
  uint8_t lengths[320];
  int i = 0;
  for (; i < 144; i++) lengths[i] = 8;
  for (; i < 256; i++) lengths[i] = 9;
  for (; i < 280; i++) lengths[i] = 7;
  for (; i < 288; i++) lengths[i] = 8;
  for (; i < 318; i++) lengths[i] = 5;
  Huffman lit, dist;
  lit.Build(lengths, 288);
  dist.Build(lengths + 288, 30);
  return Codes(b, lit, dist, out);
}

uint32_t Be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

int Paeth(int a, int b, int c) {
  int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p,
      pc = p > c ? p - c : c - p;
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

bool Inflate(const uint8_t* in, size_t len, std::vector<uint8_t>* out) {
  Bits b{in, len};
  int last;
  do {
    last = b.Get(1);
    int type = b.Get(2);
    if (b.bad) return false;
    if (type == 0) {
      b.buf = 0;
      b.cnt = 0;
      if (b.pos + 4 > len) return false;
      size_t n = in[b.pos] | (in[b.pos + 1] << 8);
      b.pos += 4;
      if (b.pos + n > len) return false;
      out->insert(out->end(), in + b.pos, in + b.pos + n);
      b.pos += n;
    } else if (type == 1) {
      if (!Fixed(b, out)) return false;
    } else if (type == 2) {
      if (!Dynamic(b, out)) return false;
    } else {
      return false;
    }
  } while (!last);
  return true;
}

bool PngRead(const std::string& data, Image* out, std::string* err) {
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < 8 || memcmp(p, sig, 8)) {
    *err = "not a PNG file";
    return false;
  }
  size_t pos = 8;
  int depth = 0, ctype = 0, interlace = 0;
  std::vector<uint8_t> z;
  while (pos + 12 <= data.size()) {
    uint32_t n = Be32(p + pos);
    std::string type(data, pos + 4, 4);
    if (pos + 12 + n > data.size()) break;
    const uint8_t* c = p + pos + 8;
    if (type == "IHDR") {
      out->width = static_cast<int>(Be32(c));
      out->height = static_cast<int>(Be32(c + 4));
      depth = c[8];
      ctype = c[9];
      interlace = c[12];
    } else if (type == "IDAT") {
      z.insert(z.end(), c, c + n);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + n;
  }
  if (depth != 8 || (ctype != 2 && ctype != 6) || interlace) {
    *err = "only 8-bit RGB/RGBA, non-interlaced PNGs are read (depth " + std::to_string(depth) +
           ", colour type " + std::to_string(ctype) + ")";
    return false;
  }
  if (z.size() < 2 || out->width <= 0 || out->height <= 0) {
    *err = "no image data";
    return false;
  }
  std::vector<uint8_t> raw;
  if (!Inflate(z.data() + 2, z.size() - 2, &raw)) {  // skip the zlib header
    *err = "corrupt deflate stream";
    return false;
  }
  const size_t bpp = ctype == 6 ? 4 : 3, stride = out->width * bpp;
  if (raw.size() < (stride + 1) * out->height) {
    *err = "image data too short";
    return false;
  }
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  out->rgb.resize(static_cast<size_t>(out->width) * out->height * 3);
  for (int y = 0; y < out->height; y++) {
    const uint8_t* line = raw.data() + y * (stride + 1);
    int filter = line[0];
    for (size_t i = 0; i < stride; i++) {
      int a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0,
          x = line[1 + i];
      switch (filter) {
        case 0:
          break;
        case 1:
          x += a;
          break;
        case 2:
          x += b;
          break;
        case 3:
          x += (a + b) / 2;
          break;
        case 4:
          x += Paeth(a, b, c);
          break;
        default:
          *err = "bad scanline filter";
          return false;
      }
      cur[i] = static_cast<uint8_t>(x);
    }
    for (int xk = 0; xk < out->width; xk++)
      for (int k = 0; k < 3; k++)
        out->rgb[(static_cast<size_t>(y) * out->width + xk) * 3 + k] = cur[xk * bpp + k];
    prev.swap(cur);
  }
  return true;
}
