"""The gallery of `likes serve` driven in a real headless Chromium (Debian's chromium and
chromium-driver, python3-selenium, python3-pil).

    gallery_browser.py --likes BIN --samples DIR [--screenshots DIR]

On a store of the sample photos and 140 made-up ones, with a stand-in for Unsplash's and Flickr's
APIs (source_server.py): the favorites load 60 at a time and more on
scroll; search and a colour chip filter; the heart unlikes and, pressed again, undoes; a hostile id
shows as text; the keyboard reaches and presses a heart; a photo's page shows its file name, size,
pixels and credit, saves its note and adds it to an album; the albums page shows the album with
its count and cover; two checked photos download as one zip, byte for byte; a like made by another
process appears within a second, without a reload; and the dark scheme is dark. Screenshots of
each page, light and dark, go to --screenshots.

Prints `ok   NAME` or `FAIL NAME: why` per check and `gallery-browser: N passed, M failed`; exits 1
when anything failed, 2 when the browser cannot be started.
"""

import argparse
import io
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
    for index in range(140):
        colour = tuple(generator.randrange(256) for _ in range(3))
        Image.new("RGB", (96, 64), colour).save(os.path.join(made, f"made-{index:03d}.jpg"), quality=80)
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
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads, "eventsEnabled": False})

    def wait(condition, seconds=5.0):
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
        for _ in range(6):
            driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
            if wait(lambda: len(figures()) == 148, 1.5):
                break
        shown = [node.get_attribute("data-id") for node in figures()]
        check("scrolling loads the rest, each photo once", len(shown) == 148 and len(set(shown)) == 148, f"{len(shown)} shown")
        driver.execute_script("window.scrollTo(0, 0)")

        # A hostile id is text.
        check("a hostile id is shown as text, never as markup",
              driver.execute_script("return document.querySelectorAll('img[src=\"x\"]').length") == 0 and driver.title != "1"
              and figure(HOSTILE_ID) is not None and figure(HOSTILE_ID).find_element(By.TAG_NAME, "figcaption").text == HOSTILE_ID,
              driver.title)

        # Search and colour.
        search = driver.find_element(By.CSS_SELECTOR, "input[type=search]")
        search.send_keys("chelsea")
        check("search filters as one types", wait(lambda: [n.get_attribute("data-id") for n in figures()] == ["chelsea"]),
              f"{[n.get_attribute('data-id') for n in figures()][:5]}")
        search.clear()
        search.send_keys(" ")
        search.send_keys(Keys.BACKSPACE)
        wait(lambda: len(figures()) == 60)
        driver.find_element(By.CSS_SELECTOR, ".chip[data-color=blue]").click()
        expected_blue = json.loads(run("list", "--color", "blue", "--json").stdout)
        check("a colour chip shows that family, as `likes list --color` does",
              wait(lambda: [n.get_attribute("data-id") for n in figures()] == [r["id"] for r in expected_blue][:60]) and len(expected_blue) > 0,
              f"{len(figures())} shown, {len(expected_blue)} expected")
        driver.save_screenshot(os.path.join(shots, "favorites-blue.png"))
        driver.find_element(By.CSS_SELECTOR, ".chip[data-color=blue]").click()
        wait(lambda: len(figures()) == 60)

        # The heart: unlike, then undo.
        heart = figure("rocket").find_element(By.CSS_SELECTOR, "button.heart")
        check("each photo has a pressed heart and a select box",
              heart.get_attribute("aria-pressed") == "true" and figure("rocket").find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=select]"))
        heart.click()
        check("the heart unlikes", wait(lambda: heart.get_attribute("aria-pressed") == "false") and wait(lambda: "rocket" not in records()),
              heart.get_attribute("aria-pressed"))
        heart.click()
        check("pressed again, it undoes the unlike", wait(lambda: heart.get_attribute("aria-pressed") == "true") and wait(lambda: "rocket" in records()))

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
        appeared = wait(lambda: figure("from-elsewhere"), 3)
        delay = time.time() - liked
        check("a like by another process appears within 1 s, without a reload",
              appeared is not None and delay < 1.0 and driver.execute_script("return window.likesMarker") == marker, f"{delay:.2f} s")
        run("unlike", "from-elsewhere")
        check("...and an unlike elsewhere takes it away", wait(lambda: figure("from-elsewhere") is None, 3))

        # Select two and download them as one zip.
        for photo_id in ["coffee", "chelsea"]:
            figure(photo_id).find_element(By.CSS_SELECTOR, "input[name=select]").click()
        driver.find_element(By.CSS_SELECTOR, "button[name=download]").click()
        archive_path = wait(lambda: next((os.path.join(downloads, n) for n in os.listdir(downloads) if n.endswith(".zip")), None), 10)
        ok = False
        if archive_path:
            wait(lambda: not any(n.endswith(".crdownload") for n in os.listdir(downloads)), 10)
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
        check("a photo's page shows it", wait(lambda: driver.find_elements(By.CSS_SELECTOR, "img.full")))
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
        note = driver.find_element(By.CSS_SELECTOR, "textarea[name=note]")
        note.clear()
        note.send_keys("Seen at dawn,\nfrom the north shore")
        driver.find_element(By.CSS_SELECTOR, "button[name=save]").click()
        check("the note is saved", wait(lambda: records()["lake"]["note"] == "Seen at dawn,\nfrom the north shore"))
        driver.find_element(By.CSS_SELECTOR, "input[name=album]").send_keys("Mornings")
        driver.find_element(By.CSS_SELECTOR, "button[name=add-album]").click()
        check("the photo is added to an album", wait(lambda: records()["lake"]["albums"] == ["Mornings"])
              and wait(lambda: driver.find_elements(By.CSS_SELECTOR, "li[data-album=Mornings]")))
        driver.find_element(By.CSS_SELECTOR, "input[name=album]").send_keys("Lakes")
        driver.find_element(By.CSS_SELECTOR, "button[name=add-album]").click()
        wait(lambda: records()["lake"]["albums"] == ["Lakes", "Mornings"])
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

        # Searching Unsplash: a result liked already shows it; a heart likes one, downloaded on
        # the server, its download counted once, and it is in Favorites at once.
        run("like", "oXV3bzR7jxI", "--image", os.path.join(samples, "chelsea.jpg"))
        driver.get(origin + "/")
        check("the Search pages are linked from every page",
              wait(lambda: [a.text for a in driver.find_elements(By.CSS_SELECTOR, "nav a[data-source]")] == ["Unsplash", "Flickr"]))
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
        check("a heart on a result likes it", wait(lambda: "s9CC2SKySJM" in records(), 10)
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
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=5)
        stand_in.stdin.close()
        stand_in.wait(timeout=5)
        shutil.rmtree(top, ignore_errors=True)
    print(f"gallery-browser: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
