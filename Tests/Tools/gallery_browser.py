"""The gallery of `likes serve` driven in a real headless Chromium (Debian's chromium and
chromium-driver, python3-selenium, python3-pil).

    gallery_browser.py --likes BIN --samples DIR [--screenshots DIR]

On a store of the sample photos and 140 made-up ones (of several shapes, small ones and a panorama
among them, and one of 4000×3000), with a stand-in for Unsplash's and Flickr's APIs
(source_server.py), at 1280×800 on a 2× screen and at 390×844 as a phone (SPEC §10):
- the grid: pages of 60 on scroll; justified rows of one height filling the width (±1 px), each
  photo its shape, small ones scaled up; every image the smallest that covers its device pixels;
  a header for each month; captions only where there are words; the heart and the check box on
  hover, focus and while selecting; search, a colour chip, the heart's unlike and undo, the
  keyboard; a like elsewhere shown without a reload; dropped JPEGs liked, other files named;
- selection: a bar that stays in view with the count and Download, Add to album and Unlike;
  shift-click ranges; on a phone a long press that selects and a drag across photos that selects
  them (and gives back those it leaves, and scrolls on at the window's edge), a swipe that selects
  nothing and a tap that opens; Select all and Ctrl-A over the whole listing; an album made from a
  selection; a selection unliked and brought back; two photos downloaded as one zip;
- time: in a store liked over 20 months (an export with its dates moved), day headers in its dense
  month and none in the others, the rail of years and months on a wide screen, a jump to the oldest month loading only its page (timed and printed),
  the newer photos loaded above as one scrolls up; on a phone headers and no rail;
- the note: saved by itself after typing stops and when the page is left at once, on both screens;
- the viewer: the photo filling the window beside its details, no navigation; a rendition at the
  fit, the original only when zoomed to its pixels by double-click; + - Escape, Ctrl-wheel, drag
  to pan, pinch on a phone; i for the details, ? for the shortcuts; ← → and swipes; the page's
  own unlike not announced back; a photo that does not exist shows no controls, neither while it
  is asked for (400 ms late) nor after, and its keys (? and Escape) work from the first moment;
- the shortcuts with the focus on a check box just ticked: Ctrl-A, Escape, ? and /, on both screens;
- albums renamed and deleted in the page (no prompt()); an album that does not exist offers
  nothing; the albums page; Back and Escape to the same place; the sources' pages named Unsplash
  and Flickr and shown only with their keys; the dark scheme. Screenshots of each page go to
  --screenshots.

Prints `ok   NAME` or `FAIL NAME: why` per check and `gallery-browser: N passed, M failed`; exits 1
when anything failed, 2 when the browser cannot be started.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HOSTILE_ID = '<img src=x onerror="document.title=1">'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--screenshots")
    arguments = parser.parse_args()
    try:
        from PIL import Image
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
    except ImportError as error:
        print(f"gallery-browser: {error}; install chromium-driver, python3-selenium and python3-pil", file=sys.stderr)
        sys.exit(2)

    likes = os.path.abspath(arguments.likes)
    samples = os.path.abspath(arguments.samples)
    top = tempfile.mkdtemp(prefix="likes-gallery-browser-")
    store = os.path.join(top, "store")
    downloads = os.path.join(top, "downloads")
    os.mkdir(downloads)
    shots = arguments.screenshots or os.path.join(top, "shots")
    os.makedirs(shots, exist_ok=True)
    passed = failed = 0

    def check(name, condition, why=""):
        nonlocal passed, failed
        if condition:
            passed += 1
            print(f"ok   {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {why}")
        sys.stdout.flush()

    def run(*args):
        return subprocess.run([likes, "--store", store, *args], capture_output=True, text=True, check=True)

    def records():
        return {record["id"]: record for record in json.loads(run("list", "--json").stdout)}

    # The store: 140 made-up photos of every colour first (so the samples are the newest), then
    # the samples, a photo credited to Unsplash and one with a hostile id.
    made = os.path.join(top, "made")
    os.mkdir(made)
    generator = random.Random(7)
    # Small photos and a panorama among them: the rows scale them up to fill the width.
    shapes = [(1200, 800), (800, 1200), (1000, 1000), (1280, 720), (900, 1200), (300, 200), (1200, 400)]
    for index in range(140):
        colour = tuple(generator.randrange(256) for _ in range(3))
        Image.new("RGB", shapes[index % len(shapes)], colour).save(os.path.join(made, f"made-{index:03d}.jpg"), quality=80)
    big = os.path.join(top, "big-photo.jpg")
    Image.new("RGB", (4000, 3000), (40, 90, 160)).save(big, quality=85)
    run("like", "big-photo", "--image", big)
    run("import", made)
    run("import", samples)
    meta = os.path.join(top, "unsplash.json")
    with open(meta, "w") as handle:
        json.dump({"id": "lake", "description": "A lake at dawn", "color": "#1E90FF", "width": 800, "height": 600,
                   "links": {"html": "https://unsplash.com/photos/lake-at-dawn"}, "user": {"name": "Ana Lake", "username": "analake"}}, handle)
    run("like", "lake", "--image", os.path.join(samples, "retina.jpg"), "--meta", meta)
    run("like", HOSTILE_ID, "--image", os.path.join(samples, "coffee.jpg"), "--note", "<b>not bold</b>")

    # A stand-in for Unsplash's and Flickr's APIs, replaying their recorded answers.
    tools = os.path.dirname(os.path.abspath(__file__))
    source_log = os.path.join(top, "sources.log")
    stand_in = subprocess.Popen(
        ["/usr/bin/python3", os.path.join(tools, "source_server.py"), os.path.join(tools, "..", "Fixtures"), samples, source_log],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    source_port = int(stand_in.stdout.readline())
    environment = dict(os.environ, UNSPLASH_ACCESS_KEY="test-key", LIKES_UNSPLASH_API=f"http://127.0.0.1:{source_port}/unsplash",
                       FLICKR_API_KEY="flickr-key", LIKES_FLICKR_API=f"http://127.0.0.1:{source_port}/flickr/rest")
    server = subprocess.Popen([likes, "--store", store, "serve"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    address = server.stdout.readline().strip()
    origin = address.split("/?")[0]

    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900", "--disable-dev-shm-usage",
                     f"--user-data-dir={os.path.join(top, 'profile')}"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
    try:
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    except Exception as error:  # noqa: BLE001 (any failure to start is the same answer)
        server.kill()
        print(f"gallery-browser: the browser did not start: {error}", file=sys.stderr)
        sys.exit(2)
    # A script that waits in the page (a jump timed to its first photo) ends by its own deadline.
    driver.set_script_timeout(90)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads, "eventsEnabled": False})

    def screen(width, height, scale, mobile):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": mobile, "maxTouchPoints": 5 if mobile else 1})

    screen(1280, 800, 2, False)

    # What the page should do is waited for until it does, a minute at most: the CI run shares the
    # machine's two cores with the other suites, and only a hang fails.
    def wait(condition, seconds=60.0):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Exception:  # noqa: BLE001 (the page may be between states)
                pass
            time.sleep(0.05)
        return None

    def figures():
        return driver.find_elements(By.CSS_SELECTOR, "#grid figure[data-id]")

    def figure(photo_id):
        return next((node for node in figures() if node.get_attribute("data-id") == photo_id), None)

    try:
        driver.get(address)
        check("the address opens the favorites, the token gone from the address bar",
              wait(lambda: len(figures()) == 60) and driver.current_url == origin + "/", f"{driver.current_url}, {len(figures())} photos")
        ids = [node.get_attribute("data-id") for node in figures()]
        check("newest first", ids[:2] == [HOSTILE_ID, "lake"], f"{ids[:3]}")
        driver.save_screenshot(os.path.join(shots, "favorites.png"))

        # More on scroll, by cursor: every photo once.
        # Scrolled again until all are there: the deadline is only against a page that hangs.
        deadline = time.time() + 30
        while len(figures()) < 149 and time.time() < deadline:
            driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
            wait(lambda: len(figures()) == 149, 1.5)
        shown = [node.get_attribute("data-id") for node in figures()]
        check("scrolling loads the rest, each photo once", len(shown) == 149 and len(set(shown)) == 149, f"{len(shown)} shown")
        driver.execute_script("window.scrollTo(0, 0)")

        # A hostile id is text.
        check("a hostile id is shown as text, never as markup",
              driver.execute_script("return document.querySelectorAll('img[src=\"x\"]').length") == 0 and driver.title != "1"
              and figure(HOSTILE_ID) is not None
              and figure(HOSTILE_ID).find_element(By.TAG_NAME, "figcaption").get_attribute("textContent") == "<b>not bold</b>",
              driver.title)
        layout_checks(driver, check, wait, figures, records)

        # Search and colour.
        search = driver.find_element(By.CSS_SELECTOR, "input[type=search]")
        search.send_keys("chelsea")
        check("search filters as one types", wait(lambda: [n.get_attribute("data-id") for n in figures()] == ["chelsea"]),
              f"{[n.get_attribute('data-id') for n in figures()][:5]}")
        search.clear()
        search.send_keys(" ")
        search.send_keys(Keys.BACKSPACE)
        wait(lambda: len(figures()) == 60)
        driver.find_element(By.CSS_SELECTOR, "#colours summary").click()
        driver.find_element(By.CSS_SELECTOR, ".chip[data-color=blue]").click()
        expected_blue = json.loads(run("list", "--color", "blue", "--json").stdout)
        check("a colour chip shows that family, as `likes list --color` does",
              wait(lambda: [n.get_attribute("data-id") for n in figures()] == [r["id"] for r in expected_blue][:60]) and len(expected_blue) > 0,
              f"{len(figures())} shown, {len(expected_blue)} expected")
        driver.save_screenshot(os.path.join(shots, "favorites-blue.png"))
        driver.find_element(By.CSS_SELECTOR, "#colours summary").click()
        driver.find_element(By.CSS_SELECTOR, ".chip[data-color=blue]").click()
        wait(lambda: len(figures()) == 60)

        # The heart: unlike, then undo.
        heart = figure("rocket").find_element(By.CSS_SELECTOR, "button.heart")
        check("each photo has a pressed heart and a select box",
              heart.get_attribute("aria-pressed") == "true" and figure("rocket").find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=select]"))
        # The page may draw a photo's card again when a change arrives (the photo's own echo,
        # its facts read in the background), so the heart is looked up as the page has it now.
        def page_status():
            return driver.execute_script("return document.getElementById('status')?.textContent")

        def rocket_heart():
            return figure("rocket").find_element(By.CSS_SELECTOR, "button.heart")
        heart.click()
        check("the heart unlikes", wait(lambda: rocket_heart().get_attribute("aria-pressed") == "false") and wait(lambda: "rocket" not in records()),
              heart.get_attribute("aria-pressed"))
        wait(lambda: not rocket_heart().get_property("disabled"))
        rocket_heart().click()
        check("pressed again, it undoes the unlike",
              wait(lambda: rocket_heart().get_attribute("aria-pressed") == "true") and wait(lambda: "rocket" in records()),
              f"{wait(lambda: rocket_heart().get_attribute('aria-pressed'))}, {'rocket' in records()}, {page_status()}")

        # The keyboard reaches a heart and presses it.
        driver.find_element(By.CSS_SELECTOR, "input[type=search]").click()
        reached = None
        unliked = relikied = False
        for _ in range(40):
            driver.switch_to.active_element.send_keys(Keys.TAB)
            active = driver.switch_to.active_element
            if "heart" in (active.get_attribute("class") or ""):
                reached = active
                break
        if reached is not None:
            photo_id = driver.execute_script("return document.activeElement.closest('figure').dataset.id")
            reached.send_keys(Keys.SPACE)
            unliked = wait(lambda: photo_id not in records())
            reached.send_keys(Keys.ENTER)
            relikied = wait(lambda: photo_id in records())
        check("Tab reaches a heart; Space unlikes, Enter undoes", reached is not None and unliked and relikied)

        # Live: a like from another process, without a reload.
        marker = driver.execute_script("window.likesMarker = 1; return 1")
        run("like", "from-elsewhere", "--image", os.path.join(samples, "astronaut.jpg"))
        liked = time.time()
        appeared = wait(lambda: figure("from-elsewhere"))
        delay = time.time() - liked
        print(f"     a like by another process appeared after {delay:.2f} s")
        check("a like by another process appears without a reload",
              appeared is not None and driver.execute_script("return window.likesMarker") == marker, f"{delay:.2f} s")
        run("unlike", "from-elsewhere")
        check("...and an unlike elsewhere takes it away", wait(lambda: figure("from-elsewhere") is None))
        drop_checks(driver, check, wait, figure, records, samples, top)

        # Select two and download them as one zip.
        for photo_id in ["coffee", "chelsea"]:
            figure(photo_id).find_element(By.CSS_SELECTOR, "input[name=select]").click()
        driver.find_element(By.CSS_SELECTOR, "button[name=download]").click()
        archive_path = wait(lambda: next((os.path.join(downloads, n) for n in os.listdir(downloads) if n.endswith(".zip")), None))
        ok = False
        if archive_path:
            wait(lambda: not any(n.endswith(".crdownload") for n in os.listdir(downloads)))
            with zipfile.ZipFile(archive_path) as archive:
                contents = {name: archive.read(name) for name in archive.namelist()}
            wanted = {}
            for name in ["coffee", "chelsea"]:
                with open(os.path.join(samples, name + ".jpg"), "rb") as handle:
                    wanted[name] = handle.read()
            jpegs = sorted(value for name, value in contents.items() if name.endswith(".jpg"))
            ok = jpegs == sorted(wanted.values()) and "index.html" in contents
        check("two checked photos download as one zip: their JPEGs byte for byte and a contact sheet", ok, f"{archive_path}")

        # A photo's page.
        driver.get(origin + "/photo?id=lake")
        check("a photo's page shows it", wait(lambda: driver.execute_script("return document.getElementById('full').complete && document.getElementById('full').naturalWidth > 0")))
        text = driver.find_element(By.ID, "detail").text
        retina_bytes = os.path.getsize(os.path.join(samples, "retina.jpg"))
        # As `likes show` prints it: units of 1024, two decimals.
        size = f"{retina_bytes / 1024:.2f} KB" if retina_bytes < 1024 * 1024 else f"{retina_bytes / 1024 / 1024:.2f} MB"
        liked_times = driver.find_elements(By.CSS_SELECTOR, "#detail time[datetime]")
        check("the liked date is a <time datetime>", len(liked_times) == 1 and liked_times[0].get_attribute("datetime").endswith("Z"),
              f"{[t.get_attribute('datetime') for t in liked_times]}")
        check("name, size, pixels and liked date, never the store's file name", "~" not in text and size in text and "×" in text,
              text[:300])
        credit = driver.find_elements(By.CSS_SELECTOR, "#detail dd a")
        links = [(a.text, a.get_attribute("href")) for a in credit]
        check("credit: Photo by NAME on Unsplash, both linked with Unsplash's referral",
              "Photo by Ana Lake on Unsplash" in text and any(t == "Ana Lake" and "unsplash.com/@analake" in h and "utm_source=likes" in h for t, h in links)
              and any(t == "Unsplash" and "utm_medium=referral" in h for t, h in links), f"{links}")
        note_checks(driver, check, wait, origin, records, "")
        driver.get(origin + "/photo?id=lake")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "input[name=album]").is_displayed())
        driver.find_element(By.CSS_SELECTOR, "input[name=album]").send_keys("Mornings")
        driver.find_element(By.CSS_SELECTOR, "button[name=add-album]").click()
        check("the photo is added to an album", wait(lambda: records()["lake"]["albums"] == ["Mornings"])
              and wait(lambda: driver.find_elements(By.CSS_SELECTOR, "li[data-album=Mornings]")))
        driver.find_element(By.CSS_SELECTOR, "input[name=album]").send_keys("Lakes", Keys.ENTER)
        check("Enter in the album field adds the photo to that album", wait(lambda: records()["lake"]["albums"] == ["Lakes", "Mornings"]))
        driver.find_element(By.CSS_SELECTOR, "li[data-album=Lakes] button").click()
        check("and taken out of one", wait(lambda: records()["lake"]["albums"] == ["Mornings"])
              and wait(lambda: not driver.find_elements(By.CSS_SELECTOR, "li[data-album=Lakes]")))
        run("note", "lake", "changed elsewhere")
        check("a note changed by another process shows without a reload",
              wait(lambda: driver.find_element(By.CSS_SELECTOR, "textarea[name=note]").get_attribute("value") == "changed elsewhere", 3))
        driver.save_screenshot(os.path.join(shots, "photo.png"))

        # The albums page.
        driver.get(origin + "/albums")
        card = wait(lambda: driver.find_element(By.CSS_SELECTOR, ".album[data-album=Mornings]"))
        check("the albums page: the album with its count, size and cover",
              card is not None and "1 photo" in card.text and ("KB" in card.text or "MB" in card.text)
              and card.find_elements(By.TAG_NAME, "img"), card.text if card else "")
        driver.save_screenshot(os.path.join(shots, "albums.png"))
        card.click()
        check("an album opens its photos", wait(lambda: [n.get_attribute("data-id") for n in figures()] == ["lake"]))
        album_checks(driver, check, wait, figures, records, run)

        # Searching Unsplash: a result liked already shows it; a heart likes one, downloaded on
        # the server, its download counted once, and it is in Favorites at once.
        run("like", "oXV3bzR7jxI", "--image", os.path.join(samples, "chelsea.jpg"))
        driver.get(origin + "/")
        viewer_checks(driver, check, wait, origin, records, run)
        missing_photo_checks(driver, check, wait, origin, "")
        back_checks(driver, check, wait, origin, figures)
        keys_after_tick_checks(driver, check, wait, origin, figures, records, "")
        driver.get(origin + "/")
        check("with their keys, the sources' pages are in the navigation, named Unsplash and Flickr",
              wait(lambda: [a.text for a in driver.find_elements(By.CSS_SELECTOR, "nav a")] == ["Favorites", "Albums", "Unsplash", "Flickr"]))
        check("the search box searches one's own photos",
              driver.find_element(By.CSS_SELECTOR, "input[type=search]").get_attribute("placeholder") == "Search your photos")
        driver.find_element(By.CSS_SELECTOR, "nav a[data-source=unsplash]").click()
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#query"))
        driver.find_element(By.CSS_SELECTOR, "#query").send_keys("pencil", Keys.ENTER)
        check("an Unsplash search shows its results", wait(lambda: len(figures()) == 10), f"{len(figures())}")
        check("a result liked already shows a pressed heart, the others not",
              [n.get_attribute("data-id") for n in figures() if n.find_element(By.CSS_SELECTOR, ".heart").get_attribute("aria-pressed") == "true"]
              == ["oXV3bzR7jxI"])
        check("the results' images come through the gallery",
              wait(lambda: driver.execute_script("return [...document.querySelectorAll('#grid img')].every((i) => i.complete && i.naturalWidth > 0)")))
        driver.save_screenshot(os.path.join(shots, "search-unsplash.png"))
        figure("s9CC2SKySJM").find_element(By.CSS_SELECTOR, ".heart").click()
        check("a heart on a result likes it", wait(lambda: "s9CC2SKySJM" in records())
              and wait(lambda: figure("s9CC2SKySJM").find_element(By.CSS_SELECTOR, ".heart").get_attribute("aria-pressed") == "true"))
        with open(source_log) as handle:
            asked = [json.loads(line)["path"] for line in handle]
        check("...its download is counted once, after the photo", asked.count("/unsplash/photos/s9CC2SKySJM/download") == 1
              and asked.index("/unsplash/photos/s9CC2SKySJM") < asked.index("/unsplash/photos/s9CC2SKySJM/download"), f"{asked[-6:]}")
        record = records()["s9CC2SKySJM"]
        check("...with its credit", record["photo"]["photographer"] == "Green Chameleon" and "unsplash.com" in (record["photo"]["sourceURL"] or ""))
        driver.get(origin + "/")
        check("...and it is in Favorites", wait(lambda: figure("s9CC2SKySJM") is not None))
        driver.get(origin + "/search?source=flickr")
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "select[name=sort]"))
        driver.find_element(By.CSS_SELECTOR, "#query").send_keys("warsy", Keys.ENTER)
        check("a Flickr search shows its results with their titles",
              wait(lambda: len(figures()) == 30) and "Warsy (église) • 7433" in figure("49514337848").text)
        notice = driver.find_elements(By.CSS_SELECTOR, "#flickr-notice")
        check("the Flickr search page says Flickr's terms' line",
              bool(notice) and notice[0].text == "This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc.")
        driver.save_screenshot(os.path.join(shots, "search-flickr.png"))

        # Dark.
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        driver.get(origin + "/")
        wait(lambda: len(figures()) == 60)
        background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        channels = [int(x) for x in re.findall(r"\d+", background)[:3]]
        check("the dark scheme is dark", channels and max(channels) < 60, background)
        driver.save_screenshot(os.path.join(shots, "favorites-dark.png"))
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})

        # A phone.
        screen(390, 844, 3, True)
        phone_checks(driver, check, wait, origin, figures, records, shots)
        missing_photo_checks(driver, check, wait, origin, "on a phone, ")
        note_checks(driver, check, wait, origin, records, "on a phone, ")
        keys_after_tick_checks(driver, check, wait, origin, figures, records, "on a phone, ")
        taken_order_checks(driver, check, wait, likes, top, shots, "on a phone, ")
        screen(1280, 800, 2, False)
        time_checks(driver, check, wait, likes, store, top, shots, screen)
        taken_order_checks(driver, check, wait, likes, top, shots, "")
        keyless_checks(driver, check, wait, likes, store, shots)
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=5)
        stand_in.stdin.close()
        stand_in.wait(timeout=5)
        shutil.rmtree(top, ignore_errors=True)
    print(f"gallery-browser: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


# The checks below take the page as main() left it and say what they found through `check`.

SHARPNESS = """
return [...document.querySelectorAll('#grid figure img')].filter((image) => {
  const box = image.getBoundingClientRect();
  return box.bottom > 0 && box.top < innerHeight && image.complete && image.naturalWidth > 0;
}).map((image) => {
  const box = image.getBoundingClientRect();
  const side = /[?&]side=(\\d+)/.exec(image.currentSrc);
  return [image.closest('figure').dataset.id, box.width * devicePixelRatio, box.height * devicePixelRatio,
          image.currentSrc.includes('/image?') ? 'image' : side ? 'rendition ' + side[1] : 'thumbnail'];
});
"""


def ladder(width, height):
    """The long sides of a photo's renditions, as the store makes them (SPEC §9): twice the
    thumbnail's, doubled while shorter than the photo. The thumbnail is the smallest DCT scale
    whose long side reaches 256 (at most 512)."""
    long = max(width, height)
    scale = next((m for m in (1, 2, 4, 8) if -(-long * m // 8) >= min(256, long)), 8)
    thumbnail = min(-(-long * scale // 8), 512)
    sides, side = [], 2 * thumbnail
    while side < long:
        sides.append(side)
        side *= 2
    return thumbnail, sides


def pixels_of(record, kind):
    """The pixel size of the file an image shows: the original, the thumbnail or a rendition."""
    image = record["image"]
    if kind == "image":
        return image["width"], image["height"]
    if kind.startswith("rendition "):
        side, long = int(kind.split()[1]), max(image["width"], image["height"])
        return round(image["width"] * side / long), round(image["height"] * side / long)
    thumbnail = record["thumbnail"] or image
    return thumbnail["width"], thumbnail["height"]


def sizes_check(driver, records):
    """Every image in view against the photo's candidates (thumbnail, renditions, original):
    the one shown covers the device pixels of its box, or is the original; and the next smaller
    one would not have (so it is never more than twice what is needed, the steps being at most
    2x). Returns (problems, shown kinds)."""
    kept = records()
    problems, kinds = [], []
    for photo_id, width, height, kind in driver.execute_script(SHARPNESS):
        record = kept[photo_id]
        image = record["image"]
        thumbnail, sides = ladder(image["width"], image["height"])
        long = max(image["width"], image["height"])
        candidates = [thumbnail] + sides + [long]
        shown = pixels_of(record, kind)
        need = max(width / shown[0], height / shown[1]) * max(shown)
        chosen = max(shown)
        kinds.append(kind.split()[0])
        if chosen < long and need > chosen * 1.02:
            problems.append((photo_id, kind, round(need), chosen, "short"))
        smaller = [c for c in candidates if c < chosen - 1]
        if smaller and smaller[-1] * 1.02 >= need and kind != "thumbnail":
            problems.append((photo_id, kind, round(need), chosen, f"{smaller[-1]} would do"))
    return problems, kinds


IMAGE_BYTES = """
return performance.getEntriesByType('resource').filter((entry) => /\\/(image|thumbnail|rendition)\\?/.test(entry.name))
  .map((entry) => [entry.name.replace(/^.*\\/(image|thumbnail|rendition)\\?.*$/, '$1'), entry.encodedBodySize]);
"""

ROWS = """
const grid = document.getElementById('grid'), bounds = grid.getBoundingClientRect();
const items = [...grid.children].slice(0, 90).map((node) => {
  const box = node.getBoundingClientRect();
  return node.tagName === 'H2' || node.tagName === 'H3' ? {header: node.textContent, top: box.top}
    : {id: node.dataset.id, top: Math.round(box.top), left: box.left, right: box.right, width: box.width, height: box.height};
});
return {items, left: bounds.left, right: bounds.right, more: !!document.querySelector('#more') && grid.children.length > 90};
"""


def rows_of(layout):
    """The grid's rows (photos sharing a top), each marked whether a month header or the end
    follows it: the rows that may stop short."""
    rows, current = [], None
    for item in layout["items"]:
        if "header" in item:
            if rows:
                rows[-1]["ends"] = True
            current = None
            continue
        if current is None or item["top"] != current["top"]:
            current = {"top": item["top"], "boxes": [], "ends": False}
            rows.append(current)
        current["boxes"].append(item)
    if rows:
        rows[-1]["ends"] = True
    return rows


def rows_check(layout, records):
    """Every row but a month's last: one height, from the left edge to the right (±1 px); every
    photo its own shape. Returns (full rows, problems)."""
    kept = records
    problems = []
    rows = rows_of(layout)
    for row in rows:
        for box in row["boxes"]:
            image = kept[box["id"]]["image"]
            shape = image["width"] / image["height"]
            if abs(box["width"] / box["height"] - shape) > 0.02 * shape + 1 / box["height"]:
                problems.append((box["id"], "shape", round(box["width"] / box["height"], 3), round(shape, 3)))
        if row["ends"]:
            continue
        heights = [b["height"] for b in row["boxes"]]
        if max(heights) - min(heights) > 1:
            problems.append(("row", row["top"], "heights", heights))
        if abs(row["boxes"][0]["left"] - layout["left"]) > 1 or abs(row["boxes"][-1]["right"] - layout["right"]) > 1:
            problems.append(("row", row["top"], "edges", row["boxes"][0]["left"], row["boxes"][-1]["right"], layout["left"], layout["right"]))
    return [row for row in rows if not row["ends"]], problems


def sharp(driver, wait, records, allow_small_originals=False):
    """Whether every photo in view is drawn at no more than one image pixel a device pixel: the
    pixels of the file it shows (the record's image or thumbnail; an <img> with a srcset reports
    sizes corrected for density, not its file's) against the device pixels of its box, which
    crops it to cover (a phone's square tiles). With `allow_small_originals`, a photo whose full
    image is shown may be drawn larger: a square tile three to a phone's row is wider than some
    photos are."""
    kept = records()

    def drawn():
        found = []
        for photo_id, width, height, kind in driver.execute_script(SHARPNESS):
            pixels = pixels_of(kept[photo_id], kind)
            found.append((photo_id, max(width / pixels[0], height / pixels[1]), kind))
        return found

    def whole(photo_id, kind):
        """Whether the file shown has all the photo's pixels (the original, or a thumbnail of a
        photo no larger than a thumbnail)."""
        return kind == "image" or pixels_of(kept[photo_id], kind) == pixels_of(kept[photo_id], "image")

    def settled():
        found = drawn()
        return found if found and all(ratio <= 1.02 or allow_small_originals and whole(i, kind) for i, ratio, kind in found) else None
    found = wait(settled)
    return found, drawn()


def layout_checks(driver, check, wait, figures, records):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    kept = records()
    layout = driver.execute_script(ROWS)
    full_rows, problems = rows_check(layout, kept)
    check("the favorites have no album's actions and no heading repeating the navigation",
          not driver.find_element(By.ID, "album-actions").is_displayed() and driver.find_element(By.ID, "title").size["width"] <= 1)
    check("the grid is justified rows that keep each photo's shape, one height a row, edge to edge (±1 px)",
          len(full_rows) >= 4 and not problems, f"{len(full_rows)} full rows, {problems[:3]}")
    scaled = [box["id"] for box in layout["items"] if "id" in box and box["width"] * 2 > kept[box["id"]]["image"]["width"] * 1.05]
    check("a photo smaller than its cell is scaled up to fill it, no gap beside it",
          any(kept[i]["image"]["width"] == 300 for i in scaled), f"{scaled[:5]}")
    months = [item["header"] for item in layout["items"] if "header" in item]
    check("the grid begins with the month's header, as the browser names it",
          bool(months) and layout["items"][0].get("header") == driver.execute_script(
              "return new Intl.DateTimeFormat(undefined, {month: 'long', year: 'numeric'}).format(new Date())"), f"{months}")
    found, drawn = sharp(driver, wait, records, allow_small_originals=True)
    check("on a 2× screen no photo is drawn larger than its pixels but a small one shown whole (a rendition where the thumbnail falls short)",
          found is not None and len(found) >= 8, f"{[d for d in drawn if d[1] > 1.02][:4]} of {len(drawn)}")
    problems, kinds = sizes_check(driver, records)
    check("on a 2× screen each photo is the smallest of its images that covers its device pixels, renditions among them",
          not problems and "rendition" in kinds and len(kinds) >= 8, f"{problems[:4]}, shown {kinds}")
    # Bytes: where a rendition covers a cell it comes instead of the original (checked above);
    # the small sample photos, which have none, come as themselves.
    fetched = driver.execute_script(IMAGE_BYTES)
    total = sum(b for _, b in fetched)
    everyone = sum(record["image"]["bytes"] for record in kept.values() if any(record["id"] == d[0] for d in drawn))
    check("on a 2× screen the first screen fetches fewer bytes than the originals of the photos it shows",
          0 < total < everyone, f"{total} fetched, originals of the shown {everyone}")
    words = {photo_id: (record["note"] or (record["photo"] or {}).get("description") or "") for photo_id, record in kept.items()}
    captions = driver.execute_script(
        "return [...document.querySelectorAll('#grid figure')].map((f) => [f.dataset.id, f.querySelector('figcaption') ? f.querySelector('figcaption').textContent : null])")
    check("captions only where there are words (the note, else the description), never an id",
          all((caption or "") == words[photo_id].strip() for photo_id, caption in captions) and any(c for _, c in captions)
          and any(c is None for _, c in captions), f"{[c for c in captions if (c[1] or '') != words[c[0]].strip()][:3]}")

    # The heart and the check box: out of the way until the pointer or the focus is on the photo.
    target = figures()[3]
    heart = target.find_element(By.CSS_SELECTOR, "button.heart")
    select = target.find_element(By.CSS_SELECTOR, "input[name=select]")
    opacity = lambda node: float(node.value_of_css_property("opacity"))  # noqa: E731
    ActionChains(driver).move_to_element_with_offset(driver.find_element(By.TAG_NAME, "header"), 0, 0).perform()
    hidden = wait(lambda: opacity(heart) == 0 and opacity(select) == 0)
    ActionChains(driver).move_to_element(target).perform()
    hovered = wait(lambda: opacity(heart) == 1 and opacity(select) == 1)
    ActionChains(driver).move_to_element_with_offset(driver.find_element(By.TAG_NAME, "header"), 0, 0).perform()
    driver.execute_script("arguments[0].querySelector('a').focus()", target)
    focused = wait(lambda: opacity(heart) == 1)
    driver.execute_script("document.activeElement.blur()")
    check("the heart and the check box show on hover and on focus, not before", bool(hidden and hovered and focused),
          f"hidden {hidden}, hover {hovered}, focus {focused}")

    # Selection mode: the boxes show, a click checks a photo instead of opening it.
    driver.find_element(By.ID, "select-mode").click()
    shown = wait(lambda: all(opacity(n) == 1 for n in driver.find_elements(By.CSS_SELECTOR, "#grid input[name=select]")[:10]))
    address = driver.current_url
    figures()[1].find_element(By.TAG_NAME, "a").click()
    figures()[2].find_element(By.TAG_NAME, "a").click()
    download = driver.find_element(By.CSS_SELECTOR, "button[name=download]")
    count = driver.find_element(By.ID, "selected-count")
    chosen = wait(lambda: driver.current_url == address and download.is_displayed() and download.text == "Download 2"
                  and count.text == "2 selected" and len(driver.find_elements(By.CSS_SELECTOR, "#grid input[name=select]:checked")) == 2, 2)
    driver.find_element(By.ID, "select-done").click()
    left = wait(lambda: not download.is_displayed() and not driver.find_elements(By.CSS_SELECTOR, "#grid input[name=select]:checked"))
    check("selection mode: boxes shown, a click checks a photo, the bar counts them, × clears them",
          bool(shown and chosen and left), f"shown {shown}, chosen {chosen}, left {left}")
    selection_checks(driver, check, wait, figures, records)

    # A search that finds nothing says so.
    search = driver.find_element(By.CSS_SELECTOR, "input[type=search]")
    search.send_keys("zzqqxx")
    empty = wait(lambda: driver.find_element(By.ID, "empty").is_displayed() and driver.find_element(By.ID, "empty").text)
    check("a search with no results says No photos match …", empty == "No photos match “zzqqxx”.", f"{empty!r}")
    search.clear()
    search.send_keys(" ")
    search.send_keys(Keys.BACKSPACE)
    wait(lambda: len(figures()) == 60)


def checked_ids(driver):
    return driver.execute_script("return [...document.querySelectorAll('#grid input[name=select]:checked')].map((box) => box.value)")


def selection_checks(driver, check, wait, figures, records):
    """Shift-click ranges, the bar in view however far one scrolls, Select all and Ctrl-A over
    the whole listing, an album made from a selection, and a selection unliked and brought back."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    bar = driver.find_element(By.ID, "selection")
    count = driver.find_element(By.ID, "selected-count")
    order = [f.get_attribute("data-id") for f in figures()]
    figures()[3].find_element(By.CSS_SELECTOR, "input[name=select]").click()
    box = figures()[9].find_element(By.CSS_SELECTOR, "input[name=select]")
    ActionChains(driver).key_down(Keys.SHIFT).click(box).key_up(Keys.SHIFT).perform()
    ranged = wait(lambda: sorted(checked_ids(driver)) == sorted(order[3:10]) and count.text == "7 selected")
    check("shift-click selects the range between two photos", bool(ranged), f"{checked_ids(driver)} for {order[3:10]}")
    driver.execute_script("window.scrollTo(0, 2500)")
    time.sleep(0.3)
    place = driver.execute_script("const b = document.getElementById('selection').getBoundingClientRect(); return [b.top, b.bottom, innerHeight]")
    check("scrolled 2,500 px down, the bar with the count and the actions is still in view",
          bar.is_displayed() and place[0] >= 0 and place[1] <= place[2] and driver.find_element(By.ID, "unlike-selected").is_displayed()
          and driver.find_element(By.ID, "add-to-album").is_displayed() and count.text == "7 selected", f"{place}")
    # From a page that has loaded its first 60 photos alone.
    driver.get(driver.current_url.split("?")[0].rstrip("/") + "/?fresh=1")
    wait(lambda: len(figures()) == 60)
    bar = driver.find_element(By.ID, "selection")
    count = driver.find_element(By.ID, "selected-count")
    driver.find_element(By.ID, "select-mode").click()
    total = len(records())
    driver.find_element(By.ID, "select-all").click()
    everything = wait(lambda: count.text == f"{total} selected")
    driver.find_element(By.ID, "select-done").click()
    wait(lambda: not bar.is_displayed())
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.CONTROL, "a")
    keyed = wait(lambda: bar.is_displayed() and count.text == f"{total} selected")
    check("Select all and Ctrl-A select the whole listing, photos not yet loaded among them",
          bool(everything and keyed) and len(figures()) < total, f"{count.text} of {total}, {len(figures())} loaded")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait(lambda: not bar.is_displayed())

    # An album from a selection, named in the page (no prompt()).
    for index in (20, 21, 22):
        figures()[index].find_element(By.CSS_SELECTOR, "input[name=select]").click()
    picked = checked_ids(driver)
    driver.find_element(By.ID, "add-to-album").click()
    field = wait(lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open] input[name=answer]"))
    field.send_keys("Picked", Keys.ENTER)
    made = wait(lambda: all("Picked" in records()[i]["albums"] for i in picked) and not bar.is_displayed())
    check("an album is made from a selection, its name asked in the page and Enter taking it",
          bool(made) and len(picked) == 3, f"{picked}")

    # Unliked together, and brought back by the Undo beside the message.
    for index in (24, 25):
        figures()[index].find_element(By.CSS_SELECTOR, "input[name=select]").click()
    gone_ids = checked_ids(driver)
    dates = {i: records()[i]["likedAt"] for i in gone_ids}
    driver.find_element(By.ID, "unlike-selected").click()
    gone = wait(lambda: not any(i in records() for i in gone_ids) and not any(f.get_attribute("data-id") in gone_ids for f in figures()))
    undo = wait(lambda: driver.find_element(By.CSS_SELECTOR, "#status button.status-action"))
    if undo:
        undo.click()
    back = wait(lambda: all(i in records() and records()[i]["likedAt"] == dates[i] for i in gone_ids)
                and [f.get_attribute("data-id") for f in figures()][24:26] == gone_ids, 4)
    check("a selection is unliked together; Undo brings each back as it was, in its place",
          bool(gone and undo and back), f"{gone_ids}: gone {gone}, undo {bool(undo)}, back {back}")


def album_checks(driver, check, wait, figures, records, run):
    from selenium.webdriver.common.by import By
    heading = driver.find_element(By.ID, "title").text
    subtitle = wait(lambda: driver.find_element(By.ID, "subtitle").text)
    back = driver.find_element(By.ID, "back")
    check("an album's page: its name, count and size, and the way back to the albums",
          heading == "Mornings" and subtitle and subtitle.startswith("1 photo · ") and back.is_displayed()
          and back.get_attribute("href").endswith("/albums"), f"{heading!r} {subtitle!r}")
    check("album names match without regard to case (`list --album mornings`)",
          [r["id"] for r in json.loads(run("list", "--album", "mornings", "--json").stdout)] == ["lake"])
    from selenium.webdriver.common.keys import Keys
    driver.find_element(By.ID, "rename-album").click()
    field = wait(lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open] input[name=answer]"))
    field.clear()
    field.send_keys("Dawns", Keys.ENTER)
    check("an album is renamed from its page; its photos stay liked, now in the new name",
          wait(lambda: records()["lake"]["albums"] == ["Dawns"]) and wait(lambda: driver.find_element(By.ID, "title").text == "Dawns")
          and wait(lambda: [n.get_attribute("data-id") for n in figures()] == ["lake"]))
    driver.find_element(By.ID, "delete-album").click()
    asked = wait(lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open]"))
    check("deleting asks in the page, naming the album and saying its photos stay",
          asked is not None and "Dawns" in asked.text and "stay" in asked.text, asked.text if asked else "")
    driver.find_element(By.CSS_SELECTOR, "dialog[open] button.primary").click()
    check("an album is deleted from its page; its photos stay liked",
          wait(lambda: "lake" in records() and records()["lake"]["albums"] == []) and wait(lambda: driver.current_url.endswith("/albums")))
    run("album", "add", "Mornings", "lake")
    driver.get(driver.current_url.split("/albums")[0] + "/?album=Nowhere")
    said = wait(lambda: driver.find_element(By.ID, "subtitle").text)
    check("an album that does not exist says so and offers no Rename or Delete",
          said == "There is no album named Nowhere." and not driver.find_element(By.ID, "album-actions").is_displayed(), f"{said!r}")
    # A cover chosen on the album's page: one photo selected, Use as cover.
    base = driver.current_url.split("/?")[0]
    other = next(r["id"] for r in json.loads(run("list", "--json").stdout) if r["id"] != "lake")
    run("album", "add", "Mornings", other)
    driver.get(base + "/?album=Mornings")
    wait(lambda: len(figures()) == 2)
    older = figures()[1].get_attribute("data-id")
    driver.find_element(By.ID, "select-mode").click()
    button = driver.find_element(By.ID, "use-as-cover")
    offered = button.is_displayed() and not button.is_enabled()
    figures()[1].find_element(By.CSS_SELECTOR, "input[name=select]").click()
    wait(lambda: button.is_enabled())
    button.click()

    def shown_cover():
        return [(a["cover"]["id"], a["coverChosen"]) for a in json.loads(run("albums", "--json").stdout) if a["name"] == "Mornings"]
    kept = wait(lambda: shown_cover() == [(older, True)])
    driver.get(base + "/albums")
    listed = wait(lambda: driver.find_element(By.CSS_SELECTOR, ".album[data-album=Mornings]").get_attribute("data-cover") == older)
    check("on an album's page, Use as cover makes the one photo selected its cover: kept in the store, shown on the albums page",
          bool(offered and kept and listed), f"{offered} {shown_cover()} for {older}")
    # (A srcset image's naturalWidth is in CSS pixels: its real width is read from the image it shows.)
    sharp = wait(lambda: driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const image = document.querySelector('.album[data-album=Mornings] img');
        if (!image || !image.complete || !image.currentSrc) return done(null);
        const box = image.getBoundingClientRect(), shown = new Image();
        shown.onload = () => done({drawn: box.width * Math.max(1, shown.naturalWidth / shown.naturalHeight) * devicePixelRatio,
                                   real: shown.naturalWidth, source: image.currentSrc});
        shown.onerror = () => done(null);
        shown.src = image.currentSrc;"""))
    original = records()[older]["image"]["width"]
    check("an album's cover is as sharp as the screen: an image with the device pixels of its square, or the original",
          bool(sharp) and (sharp["real"] >= sharp["drawn"] * 0.98 or sharp["real"] >= original), f"{sharp}")
    run("album", "remove", "Mornings", other)


def photo_id(driver):
    from urllib.parse import parse_qs, urlparse
    return parse_qs(urlparse(driver.current_url).query).get("id", [None])[0]


def viewer_checks(driver, check, wait, origin, records, run):
    from urllib.parse import quote
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    order = [r["id"] for r in json.loads(run("list", "--json").stdout)]
    driver.get(origin + "/photo?id=" + quote(order[5]))
    wait(lambda: driver.execute_script("return document.getElementById('full').complete && document.getElementById('full').naturalWidth > 0"))
    size = driver.execute_script("""
        const image = document.getElementById('full'), stage = document.getElementById('stage').getBoundingClientRect();
        const box = image.getBoundingClientRect(), info = document.getElementById('info').getBoundingClientRect();
        return {w: box.width, h: box.height, source: image.currentSrc, sw: stage.width, sh: stage.height, sl: stage.left, st: stage.top,
                infoLeft: info.left, infoWidth: info.width, header: getComputedStyle(document.querySelector('header')).display}""")
    shown = records()[order[5]]["image"]
    scale = min(size["sw"] / shown["width"], size["sh"] / shown["height"])
    check("the viewer: the photo fills the window beside its details (scaled up when smaller), no navigation around it",
          abs(size["w"] - shown["width"] * scale) < 2 and abs(size["h"] - shown["height"] * scale) < 2 and size["sl"] == 0 and size["st"] == 0
          and size["sh"] == 800 and size["infoLeft"] >= size["sw"] - 1 and size["infoWidth"] > 200 and size["header"] == "none", f"{size}")
    kept = records()[order[5]]
    thumbnail_side, ladder_sides = ladder(kept["image"]["width"], kept["image"]["height"])
    needed = max(size["w"], size["h"]) * driver.execute_script("return devicePixelRatio")
    covering = [side for side in ladder_sides if side >= needed * 0.98]
    expected = "/thumbnail?" if thumbnail_side >= needed * 0.98 else f"side={covering[0]}" if covering else "/image?"
    check("the viewer fetches the smallest of the photo's images that covers it (the original only beyond the renditions)",
          expected in size["source"], f"{size['source']} for {needed:.0f} px, thumbnail {thumbnail_side}, {ladder_sides}")
    heart = driver.find_element(By.ID, "heart")
    check("the viewer has the heart", heart.get_attribute("aria-pressed") == "true")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    right = wait(lambda: photo_id(driver) == order[6] and driver.find_element(By.ID, "name").text)
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    left = wait(lambda: photo_id(driver) == order[5] and driver.find_element(By.ID, "name").text)
    wait(lambda: driver.find_element(By.ID, "next").is_enabled())
    driver.find_element(By.ID, "next").click()
    button_next = wait(lambda: photo_id(driver) == order[6])
    wait(lambda: driver.find_element(By.ID, "previous").is_enabled())
    driver.find_element(By.ID, "previous").click()
    button_previous = wait(lambda: photo_id(driver) == order[5])
    check("← → and the buttons go to the previous and next photo in the listing's order",
          bool(right and left and button_next and button_previous), f"{photo_id(driver)}, {order[4:8]}")
    driver.get(origin + "/photo?id=" + quote(order[0]))
    wait(lambda: driver.find_element(By.ID, "name").text)
    first = wait(lambda: not driver.find_element(By.ID, "previous").is_enabled() and driver.find_element(By.ID, "next").is_enabled())
    check("the newest photo has no previous", bool(first))
    blue = [r["id"] for r in json.loads(run("list", "--color", "blue", "--json").stdout)]
    if len(blue) >= 2:
        driver.get(origin + "/photo?id=" + quote(blue[0]) + "&color=blue")
        wait(lambda: driver.find_element(By.ID, "next").is_enabled())
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        check("opened from a listing by colour, next is the next photo of that colour", wait(lambda: photo_id(driver) == blue[1]),
              f"{photo_id(driver)} for {blue[:2]}")
    # The heart in the viewer: unlike, then undo.
    driver.get(origin + "/photo?id=" + quote(order[7]))
    wait(lambda: driver.find_element(By.ID, "name").text)
    liked_at = records()[order[7]]["likedAt"]
    driver.find_element(By.ID, "heart").click()
    gone = wait(lambda: order[7] not in records())
    driver.find_element(By.ID, "heart").click()
    back = wait(lambda: order[7] in records() and records()[order[7]]["likedAt"] == liked_at)
    check("the viewer's heart unlikes, and pressed again likes it back as it was", bool(gone and back))
    wait(lambda: driver.find_element(By.ID, "heart").is_enabled() and driver.find_element(By.ID, "heart").get_attribute("aria-pressed") == "true")
    driver.find_element(By.ID, "heart").click()
    wait(lambda: order[7] not in records())
    time.sleep(1.2)
    said = driver.execute_script("return document.getElementById('status').textContent")
    check("the page's own unlike is not announced back to it as someone else's: the undo hint stays",
          "undo" in said and "elsewhere" not in said, f"{said!r}")
    wait(lambda: driver.find_element(By.ID, "heart").is_enabled())
    driver.find_element(By.ID, "heart").click()
    wait(lambda: order[7] in records())
    zoom_checks(driver, check, wait, origin, records)

    # A photo that does not exist: said so, and nothing to act on.
    driver.get(origin + "/photo?id=no-such-photo")
    wait(lambda: driver.find_element(By.ID, "name").text == "Not found")
    controls = [node for node in driver.find_elements(By.CSS_SELECTOR, "#heart, textarea, input[name=album], #note-state:not(:empty), #zoom-in")
                if node.is_displayed()]
    check("a photo that does not exist shows no heart, note or album field", controls == [], f"{[c.get_attribute('id') for c in controls]}")


def note_checks(driver, check, wait, origin, records, where):
    """The note saves itself: after typing stops, with no button, saying so under the field; and
    what was typed just before the page is left is saved all the same."""
    from selenium.webdriver.common.by import By
    driver.get(origin + "/photo?id=lake")
    note = wait(lambda: driver.find_element(By.CSS_SELECTOR, "textarea[name=note]") if driver.find_element(
        By.CSS_SELECTOR, "textarea[name=note]").is_displayed() else None)
    state = lambda: driver.find_element(By.ID, "note-state").text  # noqa: E731
    check(f"{where}the note has no Save button to miss", not driver.find_elements(By.CSS_SELECTOR, "#note-part button"))
    note.clear()
    text = "Seen at dawn,\nfrom the north shore" + (" (phone)" if where else "")
    note.send_keys(text)
    check(f"{where}a note typed saves itself, and says so under the field once it is stored",
          wait(lambda: state() == "Saved" and records()["lake"]["note"] == text), f"{state()!r}, {records()['lake']['note']!r}")
    driver.refresh()
    check(f"{where}...and is there when the page is opened again",
          wait(lambda: driver.find_element(By.CSS_SELECTOR, "textarea[name=note]").get_attribute("value") == text))
    # Typed, and the page left at once, before the pause that saves it.
    note = driver.find_element(By.CSS_SELECTOR, "textarea[name=note]")
    note.send_keys(" again")
    typed = driver.execute_script("return document.getElementById('note-state').textContent")
    driver.get(origin + "/albums")
    check(f"{where}a note typed just before the page is left is saved all the same",
          typed == "Not saved yet" and wait(lambda: records()["lake"]["note"] == text + " again"), f"{typed!r}, {records()['lake']['note']!r}")


def missing_photo_checks(driver, check, wait, origin, where):
    """A photo that does not exist, its answer 400 ms late: nothing to act on while it is asked for
    nor after, and the keys there from the first moment (? for the shortcuts, Escape back)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    controls = "#heart, #zoom-in, #zoom-out, #info-toggle, textarea, input[name=album]"
    shown = lambda: [n.get_attribute("id") or n.tag_name for n in driver.find_elements(By.CSS_SELECTOR, controls) if n.is_displayed()]  # noqa: E731
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        driver.get(origin + "/photo?id=no-such-photo")
        asking = driver.execute_script("return document.getElementById('detail').getAttribute('aria-busy')") == "true"
        early = shown()
        ActionChains(driver).send_keys("?").perform()
        listed = wait(lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open].shortcuts"), 10)
        check(f"{where}a photo still being asked for shows no heart, zoom, details button, note or album field, and ? lists its keys",
              asking and early == [] and bool(listed), f"asking {asking}, shown {early}, shortcuts {bool(listed)}")
        if listed:
            ActionChains(driver).send_keys(Keys.ESCAPE).perform()
            wait(lambda: not driver.find_elements(By.CSS_SELECTOR, "dialog[open]"))
        said = wait(lambda: driver.find_element(By.ID, "name").text == "Not found")
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    late = shown()
    message = driver.find_element(By.ID, "info").is_displayed() and driver.find_element(By.ID, "facts").text.strip() != ""
    check(f"{where}a photo that does not exist says why and offers nothing to act on, the details button among them",
          bool(said) and late == [] and message, f"shown {late}, message {message}")
    ActionChains(driver).send_keys("?").perform()
    keys = wait(lambda: [k.text for k in driver.find_elements(By.CSS_SELECTOR, "dialog[open].shortcuts dt kbd")], 10)
    if keys:
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        wait(lambda: not driver.find_elements(By.CSS_SELECTOR, "dialog[open]"))
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    back = wait(lambda: driver.execute_script("return location.pathname") == "/", 10)
    check(f"{where}there, ? lists only Escape and ?, and Escape goes back to the photos", keys == ["Escape", "?"] and bool(back), f"{keys}, back {back}")


def keys_after_tick_checks(driver, check, wait, origin, figures, records, where):
    """With the focus on a tile's check box just ticked: Ctrl-A selects the whole listing (and no
    text), Escape ends the selection, ? lists the shortcuts and / goes to the search."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver.get(origin + "/?fresh=1")
    wait(lambda: len(figures()) == 60)
    count = driver.find_element(By.ID, "selected-count")
    bar = driver.find_element(By.ID, "selection")
    if where:
        driver.find_element(By.ID, "select-mode").click()  # on a phone the boxes show while selecting
    figures()[1].find_element(By.CSS_SELECTOR, "input[name=select]").click()
    ticked = wait(lambda: count.text == "1 selected")
    focused = driver.execute_script("return document.activeElement.name") == "select"
    total = len(records())
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    everything = wait(lambda: count.text == f"{total} selected", 10)
    highlighted = driver.execute_script("return String(getSelection()).length")
    check(f"{where}with a ticked check box focused, Ctrl-A selects the whole listing and no text",
          bool(ticked and focused and everything) and highlighted == 0, f"focused {focused}, {count.text} of {total}, {highlighted} characters highlighted")
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    ended = wait(lambda: not bar.is_displayed(), 10)
    ActionChains(driver).send_keys("?").perform()
    listed = wait(lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open].shortcuts"), 10)
    if listed:
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        wait(lambda: not driver.find_elements(By.CSS_SELECTOR, "dialog[open]"))
    ActionChains(driver).send_keys("/").perform()
    searching = wait(lambda: driver.execute_script("return document.activeElement.type") == "search", 10)
    check(f"{where}then Escape ends the selection, ? lists the shortcuts and / goes to the search",
          bool(ended and listed and searching), f"ended {ended}, shortcuts {bool(listed)}, search {searching}")


VIEWER_BOX = """
const image = document.getElementById('full'), box = image.getBoundingClientRect();
const stage = document.getElementById('stage').getBoundingClientRect();
return {w: box.width, h: box.height, left: box.left, top: box.top, source: image.currentSrc, sw: stage.width, sh: stage.height,
        originals: performance.getEntriesByType('resource').filter((entry) => /\\/image\\?/.test(entry.name)).length};
"""


def zoom_checks(driver, check, wait, origin, records):
    """A 4000×3000 photo: at the fit a rendition; zoomed by double-click to the original's pixels
    (fetched then, not before); Escape, + and -, Ctrl-wheel, a drag pans; i hides and shows the
    details; ? lists the shortcuts."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver.get(origin + "/photo?id=big-photo")
    wait(lambda: driver.execute_script("const image = document.getElementById('full');"
                                       "return image.complete && image.naturalWidth > 0 && image.currentSrc.includes('big-photo')"), 20)
    time.sleep(0.3)
    fit = driver.execute_script(VIEWER_BOX)
    check("at the fit the viewer shows a rendition, the original not fetched",
          "/rendition?" in fit["source"] and fit["originals"] == 0 and abs(fit["w"] - min(fit["sw"], fit["sh"] * 4 / 3)) < 2, f"{fit}")
    image = driver.find_element(By.ID, "full")
    ActionChains(driver).double_click(image).perform()
    zoomed = wait(lambda: (lambda box: box if abs(box["w"] - 2000) < 2 and "/image?" in box["source"] and box["originals"] == 1 else None)(
        driver.execute_script(VIEWER_BOX)), 10)
    check("double-click zooms to the original's pixels (4000 px on a 2× screen: 2000 CSS px), and only then the original travels",
          zoomed is not None, f"{driver.execute_script(VIEWER_BOX)}")
    before = driver.execute_script(VIEWER_BOX)
    ActionChains(driver).move_to_element(image).click_and_hold().move_by_offset(-150, -80).release().perform()
    after = driver.execute_script(VIEWER_BOX)
    check("zoomed, a drag pans the photo", abs(after["left"] - before["left"] + 150) < 3 and abs(after["top"] - before["top"] + 80) < 3,
          f"{before['left']},{before['top']} → {after['left']},{after['top']}")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ESCAPE)
    back = wait(lambda: abs(driver.execute_script(VIEWER_BOX)["w"] - fit["w"]) < 2 and "/photo?" in driver.current_url)
    body.send_keys("+")
    bigger = wait(lambda: abs(driver.execute_script(VIEWER_BOX)["w"] - fit["w"] * 1.5) < 2)
    body.send_keys("-")
    smaller = wait(lambda: abs(driver.execute_script(VIEWER_BOX)["w"] - fit["w"]) < 2)
    driver.execute_script("""
        const stage = document.getElementById('stage'), box = stage.getBoundingClientRect();
        stage.dispatchEvent(new WheelEvent('wheel', {deltaY: -200, ctrlKey: true, clientX: box.left + box.width / 2,
          clientY: box.top + box.height / 2, bubbles: true, cancelable: true}));""")
    wheeled = wait(lambda: driver.execute_script(VIEWER_BOX)["w"] > fit["w"] * 1.5)
    check("Escape returns to the fit; + and - zoom by steps; the wheel with Ctrl zooms",
          bool(back and bigger and smaller and wheeled), f"escape {back}, + {bigger}, - {smaller}, wheel {wheeled}")
    body.send_keys("0")
    body.send_keys("i")
    closed = wait(lambda: not driver.find_element(By.ID, "info").is_displayed()
                  and driver.execute_script(VIEWER_BOX)["sw"] == driver.execute_script("return innerWidth"), 2)
    body.send_keys("i")
    opened = wait(lambda: driver.find_element(By.ID, "info").is_displayed() and driver.find_element(By.ID, "note").is_displayed())
    check("i closes the details (the photo takes the window) and opens them again", bool(closed and opened), f"{closed} {opened}")
    body.send_keys("?")
    listed = wait(lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open]").text)
    check("? lists the keyboard shortcuts", bool(listed) and "Zoom in and out" in listed and "Show or hide the details" in listed, f"{listed!r}")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)


def back_checks(driver, check, wait, origin, figures):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver.get(origin + "/")
    wait(lambda: len(figures()) == 60)
    for _ in range(8):
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        if wait(lambda: len(figures()) >= 120, 1.5):
            break
    loaded = len(figures())
    target = figures()[100]
    target_id = target.get_attribute("data-id")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
    time.sleep(0.4)
    before = driver.execute_script("return scrollY")
    target.find_element(By.TAG_NAME, "a").click()
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#name") and driver.find_element(By.ID, "name").text)
    driver.back()
    restored = wait(lambda: len(figures()) >= loaded and abs(driver.execute_script("return scrollY") - before) < 30)
    in_view = driver.execute_script("const b = arguments[0].getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight",
                                    next(f for f in figures() if f.get_attribute("data-id") == target_id))
    check("Back from a photo returns to the same place, with the photos loaded so far",
          bool(restored and in_view), f"{len(figures())} of {loaded}, scroll {driver.execute_script('return scrollY')} for {before}")
    # Through the viewer to the photos after, then Escape: the grid with the last one in sight.
    index = [f.get_attribute("data-id") for f in figures()].index(target_id)
    figures()[index].find_element(By.TAG_NAME, "a").click()
    wait(lambda: driver.find_element(By.ID, "next").is_enabled())
    for _ in range(6):
        wait(lambda: driver.find_element(By.ID, "next").is_enabled())
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.3)
    last = photo_id(driver)
    wait(lambda: driver.find_element(By.ID, "name").text)
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    home = wait(lambda: driver.current_url.rstrip("/") == origin and len(figures()) >= loaded)
    seen = wait(lambda: driver.execute_script(
        "const f = [...document.querySelectorAll('#grid figure')].find((n) => n.dataset.id === arguments[0]);"
        "if (!f) return false; const b = f.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight", last), 3)
    check("Escape from the viewer returns to the grid, the last photo viewed in sight", bool(home and seen), f"{last}")


def phone_checks(driver, check, wait, origin, figures, records, shots):
    from selenium.webdriver.common.by import By
    # Chromium takes a larger image it holds already over the one a srcset asks for: the
    # desktop's originals (the viewer's) would stand in for the phone's renditions.
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.get(origin + "/")
    wait(lambda: len(figures()) == 60)
    layout = driver.execute_script(ROWS)
    full_rows, problems = rows_check(layout, records())
    check("on a phone, justified rows from edge to edge, each photo its shape",
          len(full_rows) >= 4 and not problems and abs(layout["left"]) < 1 and abs(layout["right"] - 390) < 1, f"{problems[:3]}")
    search = driver.find_element(By.CSS_SELECTOR, "input[type=search]")
    select = driver.find_element(By.ID, "select-mode")
    check("on a phone, the search box and Select are in reach without opening anything", search.is_displayed() and select.is_displayed())
    select.click()
    figures()[2].find_element(By.TAG_NAME, "a").click()
    bar = wait(lambda: driver.find_element(By.ID, "selection").is_displayed() and driver.find_element(By.ID, "selected-count").text == "1 selected")
    check("on a phone, selecting shows the bar with the count and the actions", bool(bar)
          and all(driver.find_element(By.ID, name).is_displayed() for name in ("download", "add-to-album", "unlike-selected", "select-all")))
    driver.find_element(By.ID, "select-done").click()
    wait(lambda: not driver.find_element(By.ID, "selection").is_displayed())
    touch_selection_checks(driver, check, wait, origin, figures, shots)
    fixed = driver.execute_script("""
        return [...document.querySelectorAll('body *')].filter((node) => {
          const style = getComputedStyle(node), box = node.getBoundingClientRect();
          return (style.position === 'fixed' || style.position === 'sticky') && style.display !== 'none' && box.width > 0 && box.height > 0;
        }).map((node) => node.tagName + '#' + node.id)""")
    driver.execute_script("document.getElementById('status').textContent = 'Unliked a photo. Press the heart again to undo.'")
    fixed += driver.execute_script("""
        const status = document.getElementById('status');
        return getComputedStyle(status).position === 'static' ? [] : ['status ' + getComputedStyle(status).position]""")
    driver.execute_script("document.getElementById('status').textContent = ''")
    check("on a phone, nothing fixed covers the photos (a message too takes its own place)", fixed == [], f"{fixed}")
    found, drawn = sharp(driver, wait, records, allow_small_originals=True)
    check("on a phone's 3× screen no thumbnail is drawn larger than its pixels (a photo smaller than its cell is shown whole)",
          found is not None and len(found) >= 9, f"{[d for d in drawn if d[1] > 1.02][:4]} of {len(drawn)}")
    problems, kinds = sizes_check(driver, records)
    check("on a phone's 3× screen each photo is the smallest of its images that covers its device pixels",
          not problems and len(kinds) >= 9, f"{problems[:4]}, shown {kinds}")
    driver.save_screenshot(os.path.join(shots, "phone-favorites.png"))
    order = [f.get_attribute("data-id") for f in figures()]
    figures()[4].find_element(By.TAG_NAME, "a").click()
    wait(lambda: driver.find_element(By.ID, "next").is_enabled() and driver.find_element(By.ID, "name").text)
    driver.save_screenshot(os.path.join(shots, "phone-photo.png"))
    middle = driver.execute_script("const b = document.getElementById('stage').getBoundingClientRect(); return b.top + b.height / 2")
    touch = lambda kind, x: driver.execute_cdp_cmd("Input.dispatchTouchEvent", {  # noqa: E731
        "type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": x, "y": middle}]})
    touch("touchStart", 320)
    for x in (280, 220, 160, 100):
        touch("touchMove", x)
    touch("touchEnd", 100)
    swiped = wait(lambda: photo_id(driver) == order[5])
    check("on a phone, a swipe to the left shows the next photo", bool(swiped), f"{photo_id(driver)} for {order[5]}")
    driver.get(origin + "/photo?id=big-photo")
    wait(lambda: driver.execute_script("return document.getElementById('full').complete && document.getElementById('full').naturalWidth > 0"))
    width = driver.execute_script("return document.getElementById('full').getBoundingClientRect().width")
    middle = driver.execute_script("const b = document.getElementById('stage').getBoundingClientRect(); return b.top + b.height / 2")
    pinch = lambda kind, spread: driver.execute_cdp_cmd("Input.dispatchTouchEvent", {  # noqa: E731
        "type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": 195 - spread, "y": middle, "id": 0}, {"x": 195 + spread, "y": middle, "id": 1}]})
    pinch("touchStart", 40)
    for spread in (60, 80, 100, 120):
        pinch("touchMove", spread)
    pinch("touchEnd", 120)
    grown = wait(lambda: driver.execute_script(WIDTH_OF_FULL) > width * 2.5)
    check("on a phone, two fingers spread apart zoom the photo", bool(grown) and photo_id(driver) == "big-photo",
          f"{width} → {driver.execute_script(WIDTH_OF_FULL)}")
    driver.save_screenshot(os.path.join(shots, "phone-photo-zoomed.png"))


def touch_selection_checks(driver, check, wait, origin, figures, shots):
    """Selecting as on a phone: a long press selects, a drag across photos selects the range and
    gives back what it leaves, the grid scrolls on at the window's edge, a swipe scrolls and
    selects nothing, and a short tap opens the photo. Each touch is the browser's own input
    (`Input.dispatchTouchEvent`); the finger is held until the page shows what the press did."""
    from selenium.webdriver.common.by import By
    driver.get(origin + "/")
    wait(lambda: len(figures()) == 60)
    driver.execute_script("window.scrollTo(0, 0)")

    def touch(kind, x=0, y=0):
        driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": x, "y": y}]})

    def centre(node):
        return driver.execute_script("const b = arguments[0].getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]", node)

    def drag(start, end, steps=6):
        for step in range(1, steps + 1):
            touch("touchMove", start[0] + (end[0] - start[0]) * step / steps, start[1] + (end[1] - start[1]) * step / steps)

    def settle():
        # A swipe flings the page on after the finger leaves: the next touch waits until it stops
        # (the same place in five looks in a row, a quarter of a second).
        seen = []

        def still():
            seen.append(driver.execute_script("return scrollY"))
            return len(seen) >= 5 and len(set(seen[-5:])) == 1
        wait(still)

    count = lambda: driver.find_element(By.ID, "selected-count").text  # noqa: E731
    order = [node.get_attribute("data-id") for node in figures()]
    # A swipe over the photos, moving at once: the grid scrolls, nothing is selected (shown by the
    # long press after it, which finds one photo selected, its own).
    start = centre(figures()[8])
    touch("touchStart", *start)
    drag(start, (start[0], start[1] - 250), 4)
    touch("touchEnd")
    scrolled = wait(lambda: driver.execute_script("return scrollY") > 50)
    settle()
    driver.execute_script("window.scrollTo(0, 0)")
    settle()
    first = centre(figures()[1])
    touch("touchStart", *first)
    held = wait(lambda: count() == "1 selected" and driver.find_element(By.ID, "selection").is_displayed())
    check("on a phone, a long press on a photo selects it and shows the selection bar (a swipe before it scrolled and selected nothing)",
          bool(held) and bool(scrolled) and checked_ids(driver) == [order[1]], f"{count()}, {checked_ids(driver)}, scrolled {scrolled}")
    drag(first, centre(figures()[6]))
    check("on a phone, the finger dragged on selects every photo from the first to the one under it",
          wait(lambda: checked_ids(driver) == order[1:7]), f"{checked_ids(driver)} for {order[1:7]}")
    driver.save_screenshot(os.path.join(shots, "phone-drag-select.png"))
    drag(centre(figures()[6]), centre(figures()[3]))
    check("on a phone, dragged back, the photos it leaves are not selected again",
          wait(lambda: checked_ids(driver) == order[1:4]), f"{checked_ids(driver)} for {order[1:4]}")
    touch("touchEnd")
    # A tap after the drag toggles a photo, on the same page: the drag's release opened nothing.
    tap = centre(figures()[9])
    touch("touchStart", *tap)
    touch("touchEnd")
    check("on a phone, the drag's release opens nothing, and a tap while selecting adds a photo",
          wait(lambda: checked_ids(driver) == order[1:4] + [order[9]]) and driver.current_url.rstrip("/") == origin,
          f"{checked_ids(driver)}, {driver.current_url}")
    driver.find_element(By.ID, "select-done").click()
    wait(lambda: not driver.find_element(By.ID, "selection").is_displayed() and checked_ids(driver) == [])
    # Held at the window's bottom edge, the grid scrolls on and the range grows with it.
    first = centre(figures()[0])
    touch("touchStart", *first)
    wait(lambda: count() == "1 selected")
    bottom = driver.execute_script("return innerHeight") - 8
    drag(first, (first[0], bottom))
    grown = wait(lambda: driver.execute_script("return scrollY") > 400 and len(checked_ids(driver)) > 12)
    touch("touchEnd")
    shown = [node.get_attribute("data-id") for node in figures()]
    chosen = checked_ids(driver)
    check("on a phone, a drag held at the bottom edge scrolls on, selecting every photo it passes",
          bool(grown) and chosen == shown[:len(chosen)], f"{len(chosen)} selected, scrolled {driver.execute_script('return scrollY')}")
    driver.find_element(By.ID, "select-done").click()
    wait(lambda: not driver.find_element(By.ID, "selection").is_displayed())
    driver.execute_script("window.scrollTo(0, 0)")
    settle()
    touch("touchStart", *centre(figures()[2]))
    touch("touchEnd")
    check("on a phone, a short tap opens the photo", wait(lambda: photo_id(driver) == order[2]), f"{driver.current_url}")
    driver.get(origin + "/")
    wait(lambda: len(figures()) == 60)


def drop(driver, paths):
    """Drops files on the page as a person dragging them from a file manager would: the files
    are read through a file input (the only way a page can be given files), then dispatched in a
    drop."""
    from selenium.webdriver.common.by import By
    driver.execute_script("const input = document.createElement('input'); input.type = 'file'; input.multiple = true;"
                          "input.id = 'test-files'; input.hidden = true; document.body.append(input);")
    driver.find_element(By.ID, "test-files").send_keys("\n".join(paths))
    driver.execute_script("""
        const input = document.getElementById('test-files'), data = new DataTransfer();
        for (const file of input.files) data.items.add(file);
        input.remove();
        document.body.dispatchEvent(new DragEvent('dragover', {dataTransfer: data, bubbles: true, cancelable: true}));
        document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));""")


def drop_checks(driver, check, wait, figure, records, samples, top):
    """JPEG files dropped on the favorites are liked under their names, with a line saying how far
    it is; a PNG, and a PNG named .jpg, are named and skipped."""
    folder = os.path.join(top, "to-drop")
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(samples, "chelsea.jpg"), os.path.join(folder, "dropped cat.jpg"))
    shutil.copy(os.path.join(samples, "coffee.jpg"), os.path.join(folder, "dropped-coffee.jpeg"))
    from PIL import Image
    Image.new("RGB", (20, 20), (255, 0, 0)).save(os.path.join(folder, "drawing.png"))
    Image.new("RGB", (20, 20), (0, 255, 0)).save(os.path.join(folder, "disguised.jpg"), format="PNG")
    drop(driver, [os.path.join(folder, name) for name in ("dropped cat.jpg", "drawing.png", "disguised.jpg", "dropped-coffee.jpeg")])
    said = lambda: driver.execute_script("return document.getElementById('status').textContent")  # noqa: E731
    liked = wait(lambda: "dropped cat" in records() and "dropped-coffee" in records())
    final = wait(lambda: said().startswith("Liked 2 photos.") and said())
    with open(os.path.join(samples, "chelsea.jpg"), "rb") as handle:
        same = liked and open(records()["dropped cat"]["image"]["file"], "rb").read() == handle.read()
    check("dropped JPEGs are liked under their file names, byte for byte, and shown",
          bool(liked and same) and wait(lambda: figure("dropped cat") is not None and figure("dropped-coffee") is not None, 3), f"{said()!r}")
    check("...what is not a JPEG is named and skipped, by its name and by its bytes",
          bool(final) and "drawing.png (not a JPEG)" in final and "disguised.jpg was not liked: it is a PNG image" in final
          and "disguised" not in records() and "drawing" not in records(), f"{said()!r}")


def time_checks(driver, check, wait, likes, store, top, shots, screen):
    """A collection liked over 20 months (an export whose dates are moved, imported): a header
    for each month, and for each day in a dense one; on a wide screen a rail of years and months whose oldest month, chosen, starts
    the grid there, loading only its page; scrolling up from there brings the newer photos above
    without moving what is in view. On a phone no rail."""
    import datetime
    from selenium.webdriver.common.by import By
    exported = os.path.join(top, "months-export")
    subprocess.run([likes, "--store", store, "export", exported], check=True, capture_output=True)
    with open(os.path.join(exported, "index.json")) as handle:
        index = json.load(handle)
    start = datetime.datetime(2026, 11, 20, 12, tzinfo=datetime.timezone.utc)
    photos = sorted(index["photos"], key=lambda photo: photo["id"])
    # The newest 48 two hours apart (a dense November: twelve a day over four days), the rest
    # four days apart.
    for number, photo in enumerate(photos):
        back = datetime.timedelta(hours=2 * number) if number < 48 else datetime.timedelta(hours=96, days=4 * (number - 48))
        photo["likedAt"] = (start - back).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    with open(os.path.join(exported, "index.json"), "w") as handle:
        json.dump(index, handle)
    months_store = os.path.join(top, "months-store")
    subprocess.run([likes, "--store", months_store, "import", exported], check=True, capture_output=True)
    listed = json.loads(subprocess.run([likes, "--store", months_store, "list", "--json"], check=True, capture_output=True, text=True).stdout)
    server = subprocess.Popen([likes, "--store", months_store, "serve"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        address = server.stdout.readline().strip()
        driver.get(address)
        wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#grid figure")) >= 60)
        heads = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#grid h2.month")]
        keys = [h.get_attribute("data-month") for h in driver.find_elements(By.CSS_SELECTOR, "#grid h2.month")]
        shown_count = len(driver.find_elements(By.CSS_SELECTOR, "#grid figure"))
        expected_keys = list(dict.fromkeys(r["likedAt"][:7] for r in listed[:shown_count]))
        check("a header for each month, newest first", heads[:2] == ["November 2026", "October 2026"] and keys == expected_keys,
              f"{heads[:4]}, {keys} for {expected_keys}")
        rail = wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#rail button") if driver.find_element(By.ID, "rail").is_displayed() else None)
        days = wait(lambda: driver.execute_script(DAYS_SHOWN) if driver.find_elements(By.CSS_SELECTOR, "#grid h3.day") else None)
        dense = {month: len(ids) for month, ids in days["months"].items() if len(ids) >= 30} if days else {}
        check("a dense month has a header for each day, each photo under its own day; a sparse month none",
              days is not None and list(dense) == ["2026-11"] and not days["misplaced"] and len(days["heads"]) == len(set(days["heads"]))
              and all(head.startswith("2026-11-") for head in days["heads"]) and len(days["heads"]) >= 6,
              f"{days and (days['heads'], days['misplaced'][:3], dense)}")
        years = [y.text for y in driver.find_elements(By.CSS_SELECTOR, "#rail .year-name")]
        oldest_month = listed[-1]["likedAt"][:7]
        bar = driver.execute_script(
            "const r = document.getElementById('rail'); return [r.scrollHeight, r.clientHeight, innerHeight - document.querySelector('header').offsetHeight,"
            " r.getBoundingClientRect().bottom, innerHeight]")
        check("on a wide screen a scrubber of years and months beside the grid, most of the window's height and all of it in view, nothing to scroll in it",
              bool(rail) and years[:2] == ["2026", "2025"] and len(rail) == len({r["likedAt"][:7] for r in listed}) and bar[0] <= bar[1] + 1
              and bar[1] >= 0.8 * bar[2] and bar[3] <= bar[4], f"{years}, {len(rail or [])} months, {bar}")
        driver.save_screenshot(os.path.join(shots, "favorites-months.png"))
        in_month = [r["id"] for r in listed if r["likedAt"][:7] == oldest_month]
        # Two jumps (the first from the top, the second from a month back), each timed in the page
        # from the click to the month's first photo drawn and printed: how fast is
        # Benchmarks/gallery_time.py's to say (issue 52's figure on 100,000 photos); here a jump
        # fails only by landing elsewhere or never (a minute, against a hang), since the CI run
        # shares the machine's two cores with the other suites.
        timings = []
        for attempt in range(2):
            if attempt:
                driver.find_element(By.CSS_SELECTOR, "#rail button").click()
                wait(lambda: driver.find_element(By.CSS_SELECTOR, "#grid h2.month").text == "November 2026")
            timings.append(driver.execute_async_script(JUMP_TIMED, oldest_month))
        jumped = all(t and t["first"] == in_month[0] for t in timings)
        loaded = len(driver.find_elements(By.CSS_SELECTOR, "#grid figure"))
        print(f"     the jumps to the oldest month took {[t and t['ms'] for t in timings]} ms")
        check("choosing the oldest month shows it from its newest photo, loading only its page and, to fill the view, the page before",
              bool(jumped) and loaded <= 130, f"{timings}, {loaded} loaded, first {driver.execute_script(MONTH_FIRST, oldest_month)} for {in_month[:1]}")
        # The oldest month has a few photos: the newer ones fill the view above it, and the view
        # ends at the last photo, the month's header in it.
        def filled_view():
            view = driver.execute_script(VIEW_PLACES, oldest_month)
            return view if (view["header"] is not None and view["header"][0] >= view["top"] - 1 and view["header"][1] <= view["height"]
                            and view["grid"] <= view["top"] + 1 and view["height"] - 120 <= view["last"] <= view["height"] + 1) else None
        filled = wait(filled_view)
        check("a month at the end of the listing fills the view with the photos before it, never a few photos above an empty screen",
              bool(filled), f"{driver.execute_script(VIEW_PLACES, oldest_month)}")
        # Pressed at its top and dragged to its oldest month: the month under the pointer is named
        # while dragging, and the grid begins there on release.
        driver.execute_script("document.querySelector('#rail button').click()")
        wait(lambda: driver.execute_script("return document.querySelector('#grid h2.month').dataset.month === arguments[0] && scrollY === 0",
                                           listed[0]["likedAt"][:7]))
        ticks = driver.find_elements(By.CSS_SELECTOR, "#rail button")
        newest_at, oldest_at = (driver.execute_script(
            "const b = arguments[0].getBoundingClientRect(); return [b.left + b.width / 2, b.top + Math.min(b.height / 2, 2)]", tick)
            for tick in (ticks[0], ticks[-1]))
        oldest_name = ticks[-1].get_attribute("aria-label").split(",")[0]

        def mouse(kind, where, buttons=1):
            driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": where[0], "y": where[1], "button": "left",
                                                                "buttons": buttons, "clickCount": 1})
        mouse("mouseMoved", newest_at, 0)
        mouse("mousePressed", newest_at)
        for step in range(1, 9):
            mouse("mouseMoved", (newest_at[0], newest_at[1] + (oldest_at[1] - newest_at[1]) * step / 8))
        named = wait(lambda: driver.find_element(By.CSS_SELECTOR, "#rail .scrub-label").text == oldest_name)
        driver.save_screenshot(os.path.join(shots, "favorites-scrubbing.png"))
        mouse("mouseReleased", oldest_at, 0)
        landed = wait(lambda: driver.execute_script(MONTH_FIRST, oldest_month))
        check("dragged along the scrubber, the month under the pointer is named; released, the grid shows that month",
              bool(named) and bool(landed), f"{driver.find_element(By.CSS_SELECTOR, '#rail .scrub-label').get_attribute('textContent')!r}"
              f" for {oldest_name!r}, {landed}")
        # From a month in the middle, scrolling up brings the newer photos above.
        middle_month = listed[len(listed) // 2]["likedAt"][:7]
        driver.execute_script("[...document.querySelectorAll('#rail button')].find((b) => b.dataset.month === arguments[0]).click()", middle_month)
        wait(lambda: driver.execute_script("return document.querySelector('#grid h2.month').dataset.month") == middle_month
             and driver.execute_script("return document.querySelectorAll('#grid figure').length") >= 40)
        first = driver.execute_script("return document.querySelector('#grid figure').dataset.id")
        place = driver.execute_script("return document.querySelector('#grid figure').getBoundingClientRect().top")
        driver.execute_script("window.scrollBy(0, -200)")
        grew = wait(lambda: driver.execute_script("return document.querySelector('#grid figure').dataset.id") != first)
        time.sleep(0.5)
        stays = driver.execute_script(
            "const f = [...document.querySelectorAll('#grid figure')].find((n) => n.dataset.id === arguments[0]);"
            "return f ? f.getBoundingClientRect().top : null", first)
        check("scrolling up from there brings the newer photos above, what was in view staying where it was",
              bool(grew) and stays is not None and abs(stays - (place + 200)) < 30, f"{first}: {place} → {stays}")
        driver.find_element(By.CSS_SELECTOR, "#rail button").click()
        back = wait(lambda: driver.find_element(By.CSS_SELECTOR, "#grid h2.month").text == "November 2026"
                    and driver.execute_script("return document.getElementById('newer').hidden && scrollY === 0"), 3)
        check("the rail's newest month takes a grid that begins further back to the top", bool(back))
        screen(390, 844, 3, True)
        driver.get(address.split("/?")[0] + "/?phone=1")
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#grid h2.month"))
        check("on a phone the months have headers and no rail",
              not driver.find_element(By.ID, "rail").is_displayed() and driver.find_element(By.CSS_SELECTOR, "#grid h2.month").is_displayed())
        driver.save_screenshot(os.path.join(shots, "phone-months.png"))
        screen(1280, 800, 2, False)
    finally:
        server.terminate()
        server.wait(timeout=5)


def taken_order_checks(driver, check, wait, likes, top, shots, where):
    """Photos taken over five years (their sources' dates, a ninth with none: taken when liked),
    liked together this week in another order: by date liked at first; the order's choice puts
    them by date taken, months by date taken on the headers and (on a wide screen) the scrubber,
    whose oldest month starts the grid there; the viewer's next follows that order; the choice is
    kept by the page opened again; and by date liked again."""
    import datetime
    import random as randomness
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    folder, store = os.path.join(top, "taken-photos"), os.path.join(top, "taken-store")
    if not os.path.isdir(store):
        os.makedirs(folder)
        made = sorted(name for name in os.listdir(os.path.join(top, "made")) if name.endswith(".jpg"))[:50]
        generator = randomness.Random(11)
        first = datetime.datetime(2019, 1, 5, 9, tzinfo=datetime.timezone.utc)
        for number, name in enumerate(made):
            shutil.copy(os.path.join(top, "made", name), os.path.join(folder, f"t{number:03d}.jpg"))
            taken = first + datetime.timedelta(days=generator.randrange(5 * 365), minutes=generator.randrange(1440))
            with open(os.path.join(folder, f"t{number:03d}.json"), "w") as handle:
                json.dump({"id": f"t{number:03d}", "created_at": None if number % 9 == 4 else taken.strftime("%Y-%m-%dT%H:%M:%SZ")}, handle)
        subprocess.run([likes, "--store", store, "import", folder], check=True, capture_output=True)

    def listed(*options):
        return json.loads(subprocess.run([likes, "--store", store, "list", "--json", *options], check=True, capture_output=True, text=True).stdout)
    by_taken, by_liked = listed("--by", "taken"), listed()
    server = subprocess.Popen([likes, "--store", store, "serve"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        address = server.stdout.readline().strip()
        origin = address.split("/?")[0]
        driver.get(address)
        shown = lambda: [node.get_attribute("data-id") for node in driver.find_elements(By.CSS_SELECTOR, "#grid figure")]  # noqa: E731
        liked_first = wait(lambda: shown() == [r["id"] for r in by_liked])
        check(f"{where}photos taken over years are listed by date liked at first",
              bool(liked_first) and driver.find_element(By.ID, "order").get_attribute("value") == "liked", f"{shown()[:5]}")
        Select(driver.find_element(By.ID, "order")).select_by_value("taken")
        ordered = wait(lambda: shown() == [r["id"] for r in by_taken])
        heads = [h.get_attribute("data-month") for h in driver.find_elements(By.CSS_SELECTOR, "#grid h2.month")]
        months = list(dict.fromkeys(r["takenAt"][:7] for r in by_taken))
        check(f"{where}chosen, the order by date taken lists them as `likes list --by taken` does, a header for each month taken, newest first",
              bool(ordered) and heads == months and "by=taken" in driver.current_url, f"{shown()[:5]} for {[r['id'] for r in by_taken[:5]]}, {heads[:4]} for {months[:4]}")
        driver.save_screenshot(os.path.join(shots, ("phone-" if where else "") + "favorites-by-taken.png"))
        if not where:
            rail = wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#rail button") if len(driver.find_elements(By.CSS_SELECTOR, "#rail button")) == len(months) else None)
            ticks = [b.get_attribute("data-month") for b in rail or []]
            years = [y.text for y in driver.find_elements(By.CSS_SELECTOR, "#rail .year-name")]
            oldest = months[-1]
            timing = driver.execute_async_script(JUMP_TIMED, oldest) if rail else None
            in_month = [r["id"] for r in by_taken if r["takenAt"][:7] == oldest]
            check("the scrubber has the months taken, and its oldest starts the grid at that month's newest photo taken",
                  ticks == months and years[:1] == ["2026"] and "2019" in years and bool(timing) and timing["first"] == in_month[0],
                  f"{ticks[:3]}… for {months[:3]}…, {years}, {timing} for {in_month[:1]}")
        # The viewer's next photo is the next by date taken.
        driver.get(origin + "/?by=taken")
        wait(lambda: len(shown()) == len(by_taken))
        driver.find_element(By.CSS_SELECTOR, f"#grid figure[data-id='{by_taken[9]['id']}'] a").click()
        wait(lambda: photo_id(driver) == by_taken[9]["id"] and not driver.find_element(By.ID, "next").get_attribute("disabled"))
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        moved = wait(lambda: photo_id(driver) == by_taken[10]["id"], 10)
        check(f"{where}in the viewer, the next photo is the next by date taken", bool(moved), f"{photo_id(driver)} for {by_taken[10]['id']}")
        # Its details say when it was taken, by its source's date (it has no camera's).
        dated = by_taken[10]["takenFrom"] == "source" and wait(
            lambda: "(the source's date)" in driver.find_element(By.CSS_SELECTOR, "#facts dd.taken").get_attribute("textContent"), 10)
        check(f"{where}a photo dated by its source says so among its details", bool(dated),
              f"{by_taken[10]['takenFrom']}, {[n.get_attribute('textContent') for n in driver.find_elements(By.CSS_SELECTOR, '#facts dd')]}")
        # Kept: the page opened again, with no order in its address, is by date taken.
        driver.get(origin + "/")
        kept = wait(lambda: shown() == [r["id"] for r in by_taken])
        check(f"{where}the page opened again keeps the order chosen",
              bool(kept) and driver.find_element(By.ID, "order").get_attribute("value") == "taken", f"{shown()[:5]}")
        Select(driver.find_element(By.ID, "order")).select_by_value("liked")
        back = wait(lambda: shown() == [r["id"] for r in by_liked])
        check(f"{where}and by date liked again", bool(back) and "by=" not in driver.current_url, f"{shown()[:5]}")
    finally:
        server.terminate()
        server.wait(timeout=5)


DAYS_SHOWN = """
const key = (date) => date.getFullYear() + '-' + String(date.getMonth() + 1).padStart(2, '0') + '-' + String(date.getDate()).padStart(2, '0');
const months = {}, heads = [], misplaced = [];
let day = null, month = null;
for (const node of document.getElementById('grid').children) {
  if (node.tagName === 'H2') { month = node.dataset.month; day = null; }
  else if (node.tagName === 'H3') { day = node.dataset.day; heads.push(day); }
  else if (node.dataset.id) {
    const liked = key(new Date(node.photo.likedAt));
    (months[liked.slice(0, 7)] = months[liked.slice(0, 7)] || []).push(node.dataset.id);
    if (liked.slice(0, 7) !== month || (day !== null && day !== liked)) misplaced.push([node.dataset.id, liked, month, day]);
  }
}
return {months, heads, misplaced};
"""
# The first photo after a month's header, once its image is drawn: null until then.
MONTH_FIRST_JS = """
function monthFirst(month) {
  const header = [...document.querySelectorAll('#grid h2.month')].find((node) => node.dataset.month === month);
  let node = header && header.nextElementSibling;
  while (node && node.tagName !== 'FIGURE') node = node.nextElementSibling;
  const image = node && node.querySelector('img');
  return image && image.complete && image.naturalWidth > 0 ? node.dataset.id : null;
}
"""
MONTH_FIRST = MONTH_FIRST_JS + "return monthFirst(arguments[0]);"
# Where the view's parts are: the navigation's bottom, the window's height, the month's header,
# the grid's top and the last photo's bottom.
VIEW_PLACES = """
const header = [...document.querySelectorAll('#grid h2.month')].find((node) => node.dataset.month === arguments[0]);
const figures = [...document.querySelectorAll('#grid figure')], box = header && header.getBoundingClientRect();
return {top: document.querySelector('header').getBoundingClientRect().bottom, height: innerHeight, header: box ? [box.top, box.bottom] : null,
        grid: document.getElementById('grid').getBoundingClientRect().top, last: figures[figures.length - 1].getBoundingClientRect().bottom};
"""
JUMP_TIMED = MONTH_FIRST_JS + """
const done = arguments[arguments.length - 1], month = arguments[0];
const target = [...document.querySelectorAll('#rail button')].find((button) => button.dataset.month === month);
const clicked = performance.now();
target.click();
(function look() {
  const first = monthFirst(month);
  if (first) {
    done({ms: performance.now() - clicked, first});
  } else if (performance.now() - clicked > 60000) {
    done(null);
  } else {
    requestAnimationFrame(look);
  }
})();
"""
WIDTH_OF_FULL = "return document.getElementById('full').getBoundingClientRect().width"
FIRST_SHOWN = "return document.querySelector('#grid figure')?.dataset.id"


def keyless_checks(driver, check, wait, likes, store, shots):
    """A gallery started with no photo source's key: no source page in the navigation; asked for,
    it names the variables to set."""
    from selenium.webdriver.common.by import By
    environment = {k: v for k, v in os.environ.items() if k not in ("UNSPLASH_ACCESS_KEY", "FLICKR_API_KEY")}
    server = subprocess.Popen([likes, "--store", store, "serve"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        address = server.stdout.readline().strip()
        driver.get(address)
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#grid figure"))
        time.sleep(0.3)
        links = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "nav a")]
        check("without a source's key the navigation names no source page (and nothing called Search)",
              links == ["Favorites", "Albums"], f"{links}")
        driver.get(address.split("/?")[0] + "/search")
        said = wait(lambda: driver.find_element(By.ID, "empty").is_displayed() and driver.find_element(By.ID, "empty").text)
        check("...and the source page, asked for anyway, says which variable to set",
              bool(said) and "UNSPLASH_ACCESS_KEY" in said and "FLICKR_API_KEY" in said, f"{said!r}")
        driver.save_screenshot(os.path.join(shots, "search-keyless.png"))
    finally:
        server.terminate()
        server.wait(timeout=5)


if __name__ == "__main__":
    main()
