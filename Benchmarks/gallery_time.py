#!/usr/bin/env python3
"""The gallery on a large store, in headless Chromium (issue 52): the time to the first photo and
to a screenful of photos, and of a jump through the rail to a month far back, at 1280x800 on a 2x
screen and 390x844 on a 3x one (the jump: desktop only, the phone has no rail). Times are the
page's own (Resource Timing and performance.now(), from the navigation's start or the click),
median of RUNS loads each with the browser's cache emptied first.

Usage: gallery_time.py LIKES STORE [RUNS]   (needs chromium, chromium-driver, python3-selenium)
"""
import json
import statistics
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

LIKES, STORE = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 5

# When the first image of the grid, and the last of those in the first screen, had arrived and
# were drawn: the later of each image's responseEnd and its decode, from the navigation's start.
SCREENFUL = """
const done = arguments[arguments.length - 1];
const started = performance.now();
(function look() {
  const shown = [...document.querySelectorAll('#grid figure img')].filter((image) => {
    const box = image.getBoundingClientRect();
    return box.top < innerHeight && box.bottom > 0;
  });
  if (shown.length && shown.every((image) => image.complete && image.naturalWidth > 0)) {
    const ends = performance.getEntriesByType('resource').filter((entry) => /\\/(thumbnail|rendition|image)\\?/.test(entry.name));
    const byName = new Map(ends.map((entry) => [entry.name, entry.responseEnd]));
    const times = shown.map((image) => byName.get(image.currentSrc) || performance.now());
    done({first: Math.min(...times), screen: Math.max(...times), count: shown.length});
  } else if (performance.now() - started > 20000) {
    done(null);
  } else {
    requestAnimationFrame(look);
  }
})();
"""

JUMP = """
const done = arguments[arguments.length - 1];
const buttons = [...document.querySelectorAll('#rail button')];
const target = buttons[buttons.length - 1 - arguments[0]];
const month = target.dataset.month;
const clicked = performance.now();
target.click();
(function look() {
  // The month's header wherever it is (a month near the end has the newer photos above it).
  const header = [...document.querySelectorAll('#grid h2.month')].find((node) => node.dataset.month === month);
  let after = header && header.nextElementSibling;
  while (after && after.tagName !== 'FIGURE') after = after.nextElementSibling;
  const first = after && after.querySelector('img');
  if (first && first.complete && first.naturalWidth > 0) {
    const shown = [...document.querySelectorAll('#grid figure img')].filter((image) => image.getBoundingClientRect().top < innerHeight);
    if (shown.every((image) => image.complete)) {
      done({ms: performance.now() - clicked, month, loaded: document.querySelectorAll('#grid figure').length});
      return;
    }
  }
  if (performance.now() - clicked > 20000) done(null); else requestAnimationFrame(look);
})();
"""


def main():
    server = subprocess.Popen([LIKES, "--store", STORE, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    address = server.stdout.readline().strip()
    origin = address.split("/?")[0]
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(30)
    results = {}
    try:
        driver.get(address)
        for name, (width, height, scale, mobile) in {"desktop 1280x800@2": (1280, 800, 2, False), "phone 390x844@3": (390, 844, 3, True)}.items():
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})
            firsts, screens, jumps = [], [], []
            for _ in range(RUNS):
                driver.execute_cdp_cmd("Network.clearBrowserCache", {})
                driver.get(origin + "/?fresh=" + str(time.time()))
                found = driver.execute_async_script(SCREENFUL)
                firsts.append(found["first"])
                screens.append(found["screen"])
                if not mobile:
                    time.sleep(0.5)  # the rail's months
                    jumped = driver.execute_async_script(JUMP, 0)
                    jumps.append(jumped)
            results[name] = {"firstPhotoMs": statistics.median(firsts), "screenfulMs": statistics.median(screens),
                             "firsts": firsts, "screens": screens}
            if jumps:
                results[name]["jumpMs"] = statistics.median(j["ms"] for j in jumps)
                results[name]["jumps"] = jumps
            print(name, json.dumps(results[name]))
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=5)


if __name__ == "__main__":
    main()
