"""Two stores kept in step by two real Syncthing daemons, through `likes sync --watch` on each.

    syncthing_pair.py --likes BIN --samples DIR [--syncthing PATH] [--seconds N]

Starts two Syncthing daemons (Debian's `syncthing`), each with its own home, listening and
serving its GUI on 127.0.0.1 only, with global and local discovery, relays, NAT traversal, usage
reporting, crash reporting and upgrades off before it first starts; introduces the two devices
to each other through the REST API and shares one folder between them (a copy on each side).
Then runs `likes sync COPY --watch` on each store and `likes watch --json` on the second, and
checks that likes, an unlike and a note change made on either side reach the other within the
time allowed; that the second store's watch hears the first's likes with the first's device id;
that both stores end with the same photos, dates, notes and image bytes, and verify; and that
`likes sync` wrote no file under another device's folder.

Prints `ok   NAME (N.N s)` or `FAIL NAME: why` per check and `syncthing-pair: N passed, M failed`;
exits 1 when anything failed. Every address it uses is on 127.0.0.1, and it stops what it started.
"""

import argparse
import filecmp
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ElementTree


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Daemon:
    """One Syncthing, set up before its first start so that it never looks beyond 127.0.0.1."""

    def __init__(self, syncthing, home, name):
        self.home = home
        self.name = name
        self.gui = free_port()
        self.listen = free_port()
        subprocess.run([syncthing, "generate", f"--home={home}", "--no-default-folder"], check=True, capture_output=True)
        tree = ElementTree.parse(os.path.join(home, "config.xml"))
        root = tree.getroot()
        gui = root.find("gui")
        gui.find("address").text = f"127.0.0.1:{self.gui}"
        self.key = gui.find("apikey").text
        options = root.find("options")
        settings = {
            "listenAddress": f"tcp://127.0.0.1:{self.listen}", "globalAnnounceEnabled": "false", "localAnnounceEnabled": "false",
            "relaysEnabled": "false", "natEnabled": "false", "urAccepted": "-1", "autoUpgradeIntervalH": "0",
            "crashReportingEnabled": "false", "startBrowser": "false", "announceLANAddresses": "false",
        }
        for key, value in settings.items():
            element = options.find(key)
            if element is None:
                element = ElementTree.SubElement(options, key)
            element.text = value
        for extra in options.findall("listenAddress")[1:]:
            options.remove(extra)
        for server in options.findall("globalAnnounceServer"):
            options.remove(server)
        tree.write(os.path.join(home, "config.xml"))
        environment = dict(os.environ, STNOUPGRADE="1", STNORESTART="1", STNODEFAULTFOLDER="1")
        self.log = open(os.path.join(home, "log.txt"), "w")
        self.process = subprocess.Popen(
            [syncthing, "serve", f"--home={home}", "--no-browser", "--no-restart", "--no-upgrade", f"--gui-address=127.0.0.1:{self.gui}"],
            stdout=self.log, stderr=subprocess.STDOUT, env=environment, start_new_session=True)
        self.id = self.wait_for(lambda: self.get("/rest/system/status")["myID"], 30, "the REST API")

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui}{path}", data=data, method=method, headers={"X-API-Key": self.key})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read()
            return json.loads(text) if text else None

    def get(self, path):
        return self.call("GET", path)

    def wait_for(self, probe, seconds, what):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                value = probe()
                if value:
                    return value
            except Exception:  # not up yet
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"{self.name}: {what} did not come up in {seconds} s")

    def introduce(self, other, folder):
        self.call("POST", "/rest/config/devices", {"deviceID": other.id, "name": other.name, "addresses": [f"tcp://127.0.0.1:{other.listen}"]})
        self.call(
            "POST", "/rest/config/folders",
            {
                "id": "likes", "label": "likes", "path": folder, "type": "sendreceive", "devices": [{"deviceID": self.id}, {"deviceID": other.id}],
                "fsWatcherEnabled": True, "fsWatcherDelayS": 1, "rescanIntervalS": 30,
            })

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()


class Pair:
    def __init__(self, arguments, work):
        self.likes = arguments.likes
        self.samples = arguments.samples
        self.seconds = arguments.seconds
        self.work = work
        self.passed = 0
        self.failed = 0
        self.processes = []

    def run(self, store, *words):
        return subprocess.run([self.likes, "--store", store, *words], capture_output=True, text=True, timeout=60)

    def check(self, name, condition, why="", took=None):
        if condition:
            self.passed += 1
            print(f"ok   {name}" + (f" ({took:.1f} s)" if took is not None else ""), flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}: {why}", flush=True)

    def listed(self, store):
        answer = self.run(store, "list", "--json")
        if answer.returncode == 66:
            return {}
        return {photo["id"]: photo for photo in json.loads(answer.stdout or "[]")}

    def within(self, condition):
        """Seconds until `condition` holds, or None when it did not within the time allowed."""
        start = time.time()
        while time.time() - start < self.seconds:
            if condition():
                return time.time() - start
            time.sleep(0.2)
        return None

    def start(self, store, *words):
        process = subprocess.Popen([self.likes, "--store", store, *words], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.processes.append(process)
        return process

    def same_collection(self, left, right):
        one, other = self.listed(left), self.listed(right)
        if set(one) != set(other):
            return f"{sorted(one)} against {sorted(other)}"
        for photo, record in one.items():
            theirs = other[photo]
            for field in ("likedAt", "note", "albums"):
                if record.get(field) != theirs.get(field):
                    return f"{photo}'s {field}: {record.get(field)!r} against {theirs.get(field)!r}"
            if not filecmp.cmp(record["image"]["file"], theirs["image"]["file"], shallow=False):
                return f"{photo}'s image bytes differ"
            mine, yours = record.get("userImage"), theirs.get("userImage")
            if (mine is None) != (yours is None) or mine and not filecmp.cmp(mine["file"], yours["file"], shallow=False):
                return f"{photo}'s user image differs"
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--syncthing", default=shutil.which("syncthing") or "/usr/bin/syncthing")
    parser.add_argument("--seconds", type=float, default=30)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="likes-syncthing-")
    pair = Pair(arguments, work)
    daemons = []
    try:
        laptop_copy, phone_copy = os.path.join(work, "laptop-sync"), os.path.join(work, "phone-sync")
        os.makedirs(laptop_copy)
        os.makedirs(phone_copy)
        laptop, phone = os.path.join(work, "laptop"), os.path.join(work, "phone")
        started = time.time()
        daemons = [Daemon(arguments.syncthing, os.path.join(work, "st-laptop"), "laptop"), Daemon(arguments.syncthing, os.path.join(work, "st-phone"), "phone")]
        daemons[0].introduce(daemons[1], laptop_copy)
        daemons[1].introduce(daemons[0], phone_copy)
        connected = pair.within(lambda: daemons[0].get("/rest/system/connections")["connections"].get(daemons[1].id, {}).get("connected"))
        pair.check("the two daemons connect over 127.0.0.1", connected is not None, "they did not connect", time.time() - started)

        pair.run(laptop, "like", "rocket", "--image", os.path.join(arguments.samples, "rocket.jpg"), "--note", "launch")
        laptop_id = json.loads(pair.run(laptop, "sync", laptop_copy, "--json").stdout)["device"]
        pair.run(phone, "like", "astronaut", "--image", os.path.join(arguments.samples, "astronaut.jpg"))
        phone_id = json.loads(pair.run(phone, "sync", phone_copy, "--json").stdout)["device"]
        heard = pair.start(phone, "watch", "--json")
        time.sleep(0.5)
        for store, copy in ((laptop, laptop_copy), (phone, phone_copy)):
            pair.start(store, "sync", copy, "--watch", "--json")

        took = pair.within(lambda: "rocket" in pair.listed(phone) and "astronaut" in pair.listed(laptop))
        pair.check("what each store held before reaches the other", took is not None, f"phone {sorted(pair.listed(phone))}, laptop {sorted(pair.listed(laptop))}", took)

        pair.run(laptop, "like", "coffee", "--image", os.path.join(arguments.samples, "coffee.jpg"), "--note", "morning")
        took = pair.within(lambda: pair.listed(phone).get("coffee", {}).get("note") == "morning")
        pair.check("a like on the laptop reaches the phone", took is not None, f"phone has {sorted(pair.listed(phone))}", took)

        pair.run(phone, "like", "chelsea", "--image", os.path.join(arguments.samples, "chelsea.jpg"))
        pair.run(phone, "note", "coffee", "on the balcony")
        took = pair.within(lambda: "chelsea" in pair.listed(laptop) and pair.listed(laptop).get("coffee", {}).get("note") == "on the balcony")
        pair.check("a like and a note change on the phone reach the laptop", took is not None, f"laptop has {pair.listed(laptop).get('coffee')}", took)

        # Memberships filed on both sides at once, and a user image from the phone: both albums stay.
        pair.run(laptop, "album", "add", "family", "coffee")
        pair.run(phone, "album", "add", "Été", "coffee")
        pair.run(phone, "like", "coffee", "--image", os.path.join(arguments.samples, "coffee.jpg"), "--user-image",
                 os.path.join(arguments.samples, "chelsea.jpg"))

        def filed(store):
            coffee = pair.listed(store).get("coffee", {})
            return sorted(coffee.get("albums") or []) == ["family", "Été"] and coffee.get("userImage") is not None

        took = pair.within(lambda: filed(laptop) and filed(phone))
        pair.check("albums filed on both sides and a user image reach both", took is not None,
                   f"laptop {pair.listed(laptop).get('coffee')}, phone {pair.listed(phone).get('coffee')}", took)

        pair.run(laptop, "unlike", "rocket")
        pair.run(phone, "unlike", "astronaut")
        took = pair.within(lambda: "rocket" not in pair.listed(phone) and "astronaut" not in pair.listed(laptop))
        pair.check("an unlike on each side reaches the other", took is not None, f"phone {sorted(pair.listed(phone))}, laptop {sorted(pair.listed(laptop))}", took)

        difference = pair.same_collection(laptop, phone)
        took = pair.within(lambda: pair.same_collection(laptop, phone) is None)
        pair.check("both stores list the same photos, dates, notes and image bytes", took is not None, difference or "", took)
        for store in (laptop, phone):
            answer = pair.run(store, "verify")
            pair.check(f"{os.path.basename(store)} verifies", answer.returncode == 0, answer.stdout + answer.stderr)

        time.sleep(1)
        heard.send_signal(signal.SIGTERM)
        lines = heard.communicate(timeout=10)[0].splitlines()
        changes = [json.loads(line) for line in lines if line.startswith("{")]
        from_laptop = [change for change in changes if change["change"] == "liked" and change["id"] in ("rocket", "coffee")]
        pair.check(
            "the phone's watch hears the laptop's likes with the laptop's device",
            len(from_laptop) >= 2 and all(change["device"] == laptop_id for change in from_laptop), f"{from_laptop}")
        own = [change for change in changes if change["id"] == "chelsea" and change["change"] == "liked"]
        pair.check("and its own like with its own device", own and all(change["device"] == phone_id for change in own), f"{own}")

        # Each device's own folder in each copy: likes wrote nothing under the other's.
        for copy, mine, theirs in ((laptop_copy, laptop_id, phone_id), (phone_copy, phone_id, laptop_id)):
            names = set(os.listdir(copy))
            pair.check(
                f"{os.path.basename(copy)} holds the two devices' folders and Syncthing's marker", {mine, theirs, ".stfolder"} <= names, f"{sorted(names)}")
        conflicts = [os.path.join(folder, name) for copy in (laptop_copy, phone_copy) for folder, _, names in os.walk(copy) for name in names if "sync-conflict" in name]
        print(f"note conflict copies Syncthing made: {len(conflicts)}", flush=True)
    except Exception as error:  # a daemon that would not start, a command that hung
        pair.check("the run finished", False, repr(error))
    finally:
        for process in pair.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in pair.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
        for daemon in daemons:
            daemon.stop()
        if pair.failed == 0:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"note the folders are left in {work}", flush=True)
    print(f"syncthing-pair: {pair.passed} passed, {pair.failed} failed", flush=True)
    sys.exit(1 if pair.failed else 0)


if __name__ == "__main__":
    main()
