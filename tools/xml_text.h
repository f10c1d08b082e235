// SPDX-License-Identifier: GPL-2.0-or-later
// Text for XML and HTML (attribute values too): hivedctl's cell map and
// hived-sim's plots carry VC, job and node names, which are user input.
#ifndef HIVED_TOOLS_XML_TEXT_H
#define HIVED_TOOLS_XML_TEXT_H

#include <string>

namespace hivedtools {

inline std::string XmlText(const std::string& text) {
  std::string o;
  o.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

}  // namespace hivedtools

#endif
