#!/usr/bin/env python3
"""Drives seqplay's web page (seqplay live/serve --http) in a real headless Chromium through the DevTools protocol (over
--remote-debugging-pipe: the standard library is enough, no WebSocket client needed).

  web-page-check.py dump URL                       the page's view of the state, as JSON
  web-page-check.py choose URL CHANNEL TEXT        picks the instrument whose option text contains TEXT on a
                                                   channel's strip, as a user would; prints the chosen option
  web-page-check.py watch URL CHANNEL TEXT -- CMD  runs CMD once the page is live, then waits until the
                                                   channel's strip shows TEXT; prints the delay in ms
  web-page-check.py watch URL CHANNEL TEXT --tcp PORT LINE
                                                   the same with LINE sent over TCP to 127.0.0.1:PORT (a
                                                   FluidSynth shell), timed from the send
  web-page-check.py watch URL CHANNEL TEXT --post PATH JSON
                                                   the same with JSON POSTed to PATH of URL's server by another
                                                   HTTP client (Python's http.client), timed from the send

  web-page-check.py until URL EXPRESSION --tcp PORT LINE
  web-page-check.py until URL EXPRESSION -- CMD    sends LINE as above (or starts CMD, not waiting for it),
                                                   then waits until the JavaScript EXPRESSION is true on the
                                                   page; prints the delay in ms

Exit status: 0 done, 1 the page did not get there in time, 2 no chromium.
"""
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

TIMEOUT = 10.0


class Browser:
    def __init__(self):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if binary is None:
            print("no chromium", file=sys.stderr)
            sys.exit(2)
        self.profile = tempfile.mkdtemp(prefix="seqplay-chromium-")
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        def arrange():
            read_end, write_end = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=arrange, pass_fds=(3, 4))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self.read()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 65536)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "exception") + ": " + expression)
        return result["result"].get("value")

    def wait_for(self, expression, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.evaluate(expression):
                    return True
            except RuntimeError:
                pass  # the page is still loading
            time.sleep(0.02)
        return False

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# The page is ready once it has shown a state (the strips have instruments) and its event socket is open.
READY = ("document.querySelectorAll('.strip').length === 16 && "
         "document.querySelector('.strip .instrument').options.length > 0 && "
         "document.getElementById('connection').textContent === 'live'")

VIEW = """JSON.stringify({
  connection: document.getElementById('connection').textContent,
  gain: document.getElementById('gain').value,
  inputs: [...document.querySelectorAll('#inputs span')].map(s => s.textContent),
  channels: [...document.querySelectorAll('.strip')].map(s => ({
    channel: Number(s.dataset.channel),
    instrument: s.querySelector('.instrument').value,
    option: s.querySelector('.instrument').selectedOptions[0]?.textContent,
    options: s.querySelector('.instrument').options.length,
    name: s.querySelector('.name').textContent,
    volume: Number(s.querySelector('.volume').value),
    mute: s.querySelector('.mute').classList.contains('on')}))
})"""


def strip(channel):
    return f"document.querySelector('.strip[data-channel=\"{int(channel)}\"]')"


def main(arguments):
    if len(arguments) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    command, url = arguments[0], arguments[1]
    browser = Browser()
    try:
        browser.open(url)
        if not browser.wait_for(READY):
            print("the page did not show the state within %.0f s" % TIMEOUT, file=sys.stderr)
            return 1
        if command == "dump":
            print(browser.evaluate(VIEW))
            return 0
        if command == "choose":
            channel, text = arguments[2], arguments[3]
            chosen = browser.evaluate(f"""(() => {{
                const select = {strip(channel)}.querySelector('.instrument');
                const option = [...select.options].find(o => o.textContent.includes({json.dumps(text)}));
                if (!option) return null;
                select.value = option.value;
                select.dispatchEvent(new Event('change'));
                return option.textContent; }})()""")
            if chosen is None:
                print(f"no instrument option containing {text!r} on channel {channel}", file=sys.stderr)
                return 1
            # The server's answer (and its event) show the new instrument's name on the strip.
            if not browser.wait_for(f"{strip(channel)}.querySelector('.name').textContent.includes({json.dumps(text)})"):
                print("the strip did not show the chosen instrument", file=sys.stderr)
                return 1
            print(chosen)
            return 0
        if command == "until":
            expression = arguments[2]
            started = time.time() * 1000
            if arguments[3] == "--tcp":
                connection = socket.create_connection(("127.0.0.1", int(arguments[4])), timeout=5)
                started = time.time() * 1000
                connection.sendall(arguments[5].encode() + b"\n")
                background = None
            else:
                background = subprocess.Popen(arguments[4:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                if not browser.wait_for(expression):
                    print(f"never true: {expression}", file=sys.stderr)
                    return 1
                print("%.1f" % (time.time() * 1000 - started))
                return 0
            finally:
                if background is not None:
                    background.wait(timeout=30)
        if command == "watch":
            channel, text = arguments[2], arguments[3]
            command_line = arguments[arguments.index("--") + 1:] if "--" in arguments else []
            # The page notes the wall-clock time at which the strip first shows TEXT (a MutationObserver
            # runs right after the DOM changes); the same clock as this script's on one machine.
            browser.evaluate(f"""(() => {{
                window.__seenAt = null;
                const name = {strip(channel)}.querySelector('.name');
                new MutationObserver(() => {{
                    if (window.__seenAt === null && name.textContent.includes({json.dumps(text)})) window.__seenAt = Date.now();
                }}).observe(name, {{childList: true, characterData: true, subtree: true}});
                return true; }})()""")
            if arguments[4] == "--tcp":
                connection = socket.create_connection(("127.0.0.1", int(arguments[5])), timeout=5)
                started = time.time() * 1000
                connection.sendall(arguments[6].encode() + b"\n")
            elif arguments[4] == "--post":
                server = urllib.parse.urlsplit(url)
                connection = http.client.HTTPConnection(server.hostname, server.port, timeout=5)
                connection.connect()
                started = time.time() * 1000
                connection.request("POST", arguments[5], body=arguments[6].encode(),
                                   headers={"Content-Type": "application/json"})
                if connection.getresponse().status != 200:
                    print("the POST was refused", file=sys.stderr)
                    return 1
            else:
                started = time.time() * 1000
                subprocess.run(command_line, check=True, stdout=subprocess.DEVNULL)
            if not browser.wait_for("window.__seenAt !== null"):
                print(f"channel {channel} never showed {text!r}", file=sys.stderr)
                return 1
            print("%.1f" % (browser.evaluate("window.__seenAt") - started))
            return 0
        print(f"unknown command {command}", file=sys.stderr)
        return 64
    finally:
        browser.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
