// SPDX-License-Identifier: GPL-2.0-or-later
// The HTML cell map rendered by headless Chromium: the screenshot is not blank,
// shows every legend colour and the VC colours in the amounts the status implies,
// and the rendered DOM has one hoverable GPU per GPU of the status. Skipped (77)
// when no Chromium is installed (scripts/deps installs it).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

// After the C++ headers: check.h defines a fail() macro.
#include <check.h>

#include "hivedctl_model.h"
#include "hivedctl_views.h"
#include "png_read.h"
#include "../check_run.h"

using namespace hivedctl;

namespace {

std::string browser, workdir;
Status fixture;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string FindBrowser() {
  const char* env = getenv("HIVED_CHROMIUM");
  if (env && *env) return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::string cmd = std::string("command -v ") + name + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    char buf[512] = "";
    if (p && fgets(buf, sizeof(buf), p)) {
      pclose(p);
      std::string s = buf;
      while (!s.empty() && (s.back() == '\n')) s.pop_back();
      if (!s.empty()) return s;
    } else if (p) {
      pclose(p);
    }
  }
  return "";
}

int Run(const std::string& cmd) {
  int rc = system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string Chromium(const std::string& what) {
  // A private profile; no sandbox (tests run as root); quiet.
  return "timeout 120 '" + browser + "' --headless --no-sandbox --disable-gpu --hide-scrollbars " +
         "--no-first-run --disable-extensions --force-device-scale-factor=1 " +
         "--force-color-profile=srgb --user-data-dir='" + workdir + "/profile' " + what +
         " 'file://" + workdir + "/map.html' 2>>'" + workdir + "/chromium.log'";
}

// Pixels within 3 per channel of #rrggbb.
long Pixels(const Image& img, const std::string& hex) {
  int r, g, b;
  sscanf(hex.c_str(), "#%02x%02x%02x", &r, &g, &b);
  long n = 0;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3)
    if (abs(img.rgb[i] - r) <= 3 && abs(img.rgb[i + 1] - g) <= 3 && abs(img.rgb[i + 2] - b) <= 3)
      n++;
  return n;
}

}  // namespace

// The PNG reader itself, on files made with zlib (dynamic/fixed and stored blocks).
START_TEST(test_png_reader) {
  static const char gradient[] =
      "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x18\x00\x00\x00"
      "\x10"
      "\x08\x02\x00\x00\x00\x83\x46\x28\xc2\x00\x00\x00\x72\x49\x44\x41\x54\x78\xda\xad\xcc\x5b\x11"
      "\x81"
      "\x01\x00\x05\xe1\x5d\x77\xbf\x6b\x04\x11\x44\x10\x41\x04\x11\x44\x10\x41\x04\x11\x44\x10\x41"
      "\x04"
      "\x11\x44\x70\x3a\x1c\x33\xdf\xcc\xbe\xad\xc0\xf0\x0f\xb2\x4f\xec\xc9\x21\xa3\x51\x4f\x8e\x19"
      "\x8d"
      "\x7b\x72\xca\x68\xd2\x93\x73\x46\xd3\x9e\x5c\x32\x9a\xf5\xe4\x9a\xd1\xbc\x27\xb7\x8c\x16\x3d"
      "\xb9"
      "\x67\xb4\xec\xc9\x23\xa3\xa1\x27\xcf\x8c\x56\x3d\x79\x65\xb4\xee\xc9\x3b\xa3\x4d\x4f\x3e\x19"
      "\x6d"
      "\x7b\xf2\xcd\x68\xd7\xfb\x01\xc9\x8c\x20\xb9\xc8\xf6\xef\x31\x00\x00\x00\x00\x49\x45\x4e\x44"
      "\xae"
      "\x42\x60\x82";
  static const char stored[] =
      "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x03\x00\x00\x00"
      "\x02"
      "\x08\x02\x00\x00\x00\x12\x16\xf1\x4d\x00\x00\x00\x1f\x49\x44\x41\x54\x78\x01\x01\x14\x00\xeb"
      "\xff"
      "\x00\x00\x00\x07\x64\x00\x07\xc8\x00\x07\x00\x00\xc8\x07\x64\xc8\x07\xc8\xc8\x07\x22\x5e\x04"
      "\xdb"
      "\x17\xa8\xff\x24\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";
  Image img;
  std::string err;
  ck_assert_msg(PngRead(std::string(gradient, sizeof(gradient) - 1), &img, &err), "%s",
                err.c_str());
  ck_assert_int_eq(img.width, 24);
  ck_assert_int_eq(img.height, 16);
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 24; x++) {
      const uint8_t* px = &img.rgb[(y * 24 + x) * 3];
      ck_assert_int_eq(px[0], (x * 10) % 256);
      ck_assert_int_eq(px[1], (y * 16) % 256);
      ck_assert_int_eq(px[2], (x * y) % 256);
    }
  ck_assert_msg(PngRead(std::string(stored, sizeof(stored) - 1), &img, &err), "%s", err.c_str());
  ck_assert_int_eq(img.width, 3);
  ck_assert_int_eq(img.rgb[(1 * 3 + 2) * 3 + 0], 200);
  ck_assert_int_eq(img.rgb[(1 * 3 + 2) * 3 + 1], 200);
  ck_assert(!PngRead("GIF89a", &img, &err));
  std::string broken(gradient, sizeof(gradient) - 1);
  broken.resize(broken.size() - 40);
  ck_assert(!PngRead(broken, &img, &err));
}
END_TEST

START_TEST(test_screenshot) {
  if (browser.empty()) return;
  ck_assert_int_eq(Run(Chromium("--window-size=1200,900 --screenshot='" + workdir + "/map.png'")),
                   0);
  std::string png = ReadFile(workdir + "/map.png");
  Image img;
  std::string err;
  ck_assert_msg(PngRead(png, &img, &err), "screenshot: %s", err.c_str());
  ck_assert_int_eq(img.width, 1200);
  // Not blank: far from one colour.
  long white = Pixels(img, "#ffffff"), total = static_cast<long>(img.width) * img.height;
  ck_assert_msg(white < total * 97 / 100, "screenshot is %ld of %ld white pixels", white, total);
  // Every legend colour is on screen (the legend swatches at least).
  for (size_t i = 0; i < fixture.vcs.size(); i++) {
    ck_assert_msg(Pixels(img, MapColors::Vc(i)) >= 100, "%s's colour %s missing",
                  fixture.vcs[i].name.c_str(), MapColors::Vc(i).c_str());
    ck_assert_msg(Pixels(img, MapColors::VcOpportunistic(i)) >= 100,
                  "%s's opportunistic colour %s missing", fixture.vcs[i].name.c_str(),
                  MapColors::VcOpportunistic(i).c_str());
  }
  ck_assert_int_ge(Pixels(img, MapColors::kFree), 100);
  ck_assert_int_ge(Pixels(img, MapColors::kBad), 100);
  // The map matches the state: vc1 has 16 guaranteed GPUs (a square is about 13x13
  // pixels inside its border) and a lazy-preempted job on 8 more; vc2 runs only
  // opportunistic work, so its solid colour is in the legend and the table alone.
  long vc1 = Pixels(img, MapColors::Vc(0)), vc2 = Pixels(img, MapColors::Vc(1));
  ck_assert_msg(vc1 > vc2 + 12 * 120, "vc1 %ld px vs vc2 %ld px", vc1, vc2);
  long vc1_opp = Pixels(img, MapColors::VcOpportunistic(0)),
       vc2_opp = Pixels(img, MapColors::VcOpportunistic(1));
  ck_assert_msg(vc1_opp > 2 * 150 && vc2_opp > 2 * 150,
                "opportunistic shades: vc1 %ld px, vc2 %ld px", vc1_opp, vc2_opp);
  ck_assert_msg(vc1 > vc1_opp, "vc1 guaranteed %ld px, opportunistic %ld px", vc1, vc1_opp);
}
END_TEST

START_TEST(test_dom) {
  if (browser.empty()) return;
  ck_assert_int_eq(Run(Chromium("--dump-dom") + " >'" + workdir + "/dom.html'"), 0);
  std::string dom = ReadFile(workdir + "/dom.html");
  size_t gpus = 0;
  for (size_t p = dom.find("class=\"gpu "); p != std::string::npos;
       p = dom.find("class=\"gpu ", p + 1))
    gpus++;
  ck_assert_int_eq(gpus, 32);
  ck_assert_msg(dom.find("<title>node3 GPU 5: job 11 (vc2, opportunistic)") != std::string::npos,
                "hover text of node3 GPU 5 missing from the rendered DOM");
  ck_assert(dom.find("doomed: 1 A100-NODE") != std::string::npos);
}
END_TEST

int main() {
  std::string err;
  std::string text = ReadFile(std::string(HIVEDCTL_FIXTURES) + "/status.json");
  if (!Parse(text, &fixture, &err)) {
    fprintf(stderr, "test_map_render: fixture: %s\n", err.c_str());
    return 1;
  }
  browser = FindBrowser();
  char tmpl[] = "/tmp/hivedctl-render-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  workdir = tmpl;
  std::ofstream(workdir + "/map.html") << MapHtml(fixture, fixture.written);

  Suite* s = suite_create("map_render");
  TCase* tc = tcase_create("render");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_png_reader);
  tcase_add_test(tc, test_screenshot);
  tcase_add_test(tc, test_dom);
  suite_add_tcase(s, tc);
  int failed = check_run(s, CK_NORMAL, CK_NOFORK);
  if (!failed)
    Run("rm -rf '" + workdir + "'");
  else
    fprintf(stderr, "test_map_render: files kept in %s\n", workdir.c_str());
  if (browser.empty()) {
    fprintf(stderr, "test_map_render: no chromium; only the PNG reader was tested; skipped\n");
    return failed ? 1 : 77;
  }
  return failed ? 1 : 0;
}
