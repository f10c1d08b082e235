// SPDX-License-Identifier: GPL-2.0-or-later
// The study's plots as SVG: per-VC queuing-delay CDFs, the anomaly per VC, and
// cluster utilisation over time.
#pragma once

#include <string>

#include "study.h"

namespace hivedsim {

// Writes <dir>/<prefix>delay-cdf.svg, <prefix>anomaly.svg, <prefix>utilisation.svg.
bool WritePlots(const Study& s, const std::string& dir, const std::string& prefix,
                std::string* err);

}  // namespace hivedsim
