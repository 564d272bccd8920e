#!/usr/bin/env python3
"""The texts Scripts/package writes beside the binary, made from what they describe so they never drift.

    release-texts.py manpage BINARY PREFIX        seqplay(1) in man(7) roff, on stdout
    release-texts.py debian-changelog MAINTAINER  CHANGELOG.md's releases as a Debian changelog, on stdout

manpage: every command and option from the binary's own ArgumentParser help (`BINARY --experimental-dump-help`:
abstracts, discussions, option groups, defaults, values), the exit statuses from Docs/exit-codes.md's table, and
the files as a package installed under PREFIX lays them out (Scripts/package: /usr, or /usr/local for the tarball).
debian-changelog: each "## X.Y.Z — DATE" section of CHANGELOG.md, newest first, its lines wrapped at 80 columns
(the "Unreleased" section is not a release and is left out).
Standard library only; the output depends only on its inputs (the man page's date is the newest release's).
"""

import json
import os
import re
import subprocess
import sys
import textwrap
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = re.compile(r"^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})")


def fail(message):
    sys.stderr.write("release-texts: %s\n" % message)
    sys.exit(1)


def releases():
    """CHANGELOG.md's releases, newest first: (version, date, the section's text)."""
    found, current = [], None
    with open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8") as changelog:
        for line in changelog:
            if line.startswith("## "):
                match = RELEASE.match(line)
                current = [match.group(1), match.group(2), []] if match else None
                if current:
                    found.append(current)
            elif current is not None:
                current[2].append(line.rstrip("\n"))
    if not found:
        fail("CHANGELOG.md has no '## X.Y.Z — YYYY-MM-DD' release heading")
    return [(version, date, "\n".join(lines).strip()) for version, date, lines in found]


# ---------------------------------------------------------------- man page ---

def roff(text):
    """Text as roff: backslashes escaped, every hyphen a minus (options stay ASCII on Debian), no line starting
    with a control character, markdown's backquotes dropped."""
    text = text.replace("\\", "\\e").replace("-", "\\-").replace("`", "")
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def paragraphs(text):
    """ArgumentParser's help text as roff paragraphs: prose lines are joined and filled by man; a paragraph whose
    lines are indented (an example, a table) keeps its lines."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        lines = block.split("\n")
        if any(line.startswith("  ") for line in lines[1:]) or lines[0].startswith("  "):
            out += [".PP", ".nf", ".RS 2", roff(textwrap.dedent(block)), ".RE", ".fi"]
        else:
            out += [".PP", roff(" ".join(line.strip() for line in lines))]
    return out


def option_label(argument):
    """How an argument is written: -o, --output <file> ...; a positional as <name>."""
    value = "<%s>" % argument.get("valueName", "value")
    if argument["kind"] == "positional":
        return value + (" ..." if argument.get("isRepeating") else "")
    names = []
    for name in argument.get("names", []):
        names.append(("--" if name["kind"] == "long" else "-") + name["name"])
    label = ", ".join(names)
    return label + (" " + value if argument["kind"] == "option" else "")


def option_entries(argument):
    text = argument.get("abstract", "")
    if argument.get("discussion"):
        text += ("\n\n" if text else "") + argument["discussion"]
    if argument.get("allValues") and "values:" not in text:
        text += " (values: %s)" % ", ".join(argument["allValues"])
    if argument.get("defaultValue") not in (None, "") and "default" not in text:
        text += " (default: %s)" % argument["defaultValue"]
    entry = [".TP", "\\fB%s\\fR" % roff(option_label(argument))]
    body = paragraphs(text) if text else []
    # The first paragraph is the tag's own text, not a new paragraph.
    if body[:1] == [".PP"]:
        body = body[1:]
    return entry + body


def command_options(command):
    """A command's options in their help order, grouped under their help's section titles."""
    out, section = [], None
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        title = argument.get("sectionTitle") or ("Arguments" if argument["kind"] == "positional" else "Options")
        if title != section:
            section = title
            out += [".PP", "\\fI%s:\\fR" % roff(title)]
        out += option_entries(argument)
    return out


def synopsis(path, command):
    words = ["\\fB%s\\fR" % roff(" ".join(path))]
    for argument in command.get("arguments", []):
        if argument["kind"] == "positional" and argument.get("shouldDisplay", True):
            word = roff(option_label(argument))
            words.append("[%s]" % word if argument.get("isOptional") else word)
    if any(a["kind"] != "positional" for a in command.get("arguments", [])):
        words.append("[\\fIoptions\\fR]")
    return " ".join(words)


def walk(command, path):
    """Every command below `command` with its path of names, in help order."""
    for sub in command.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            yield path + [sub["commandName"]], sub
            yield from walk(sub, path + [sub["commandName"]])


def exit_statuses():
    """Docs/exit-codes.md's table: (status, meaning) rows."""
    rows = []
    with open(os.path.join(ROOT, "Docs/exit-codes.md"), encoding="utf-8") as page:
        for line in page:
            match = re.match(r"^\| (\d+) \| (.*) \|$", line.rstrip("\n"))
            if match:
                rows.append((match.group(1), match.group(2)))
    if not rows:
        fail("Docs/exit-codes.md has no table of statuses")
    return rows


def manpage(binary, prefix):
    help_json = subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout
    root = json.loads(help_json)["command"]
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    date = next((d for v, d, _ in releases() if v == version), None)
    if date is None:
        fail("CHANGELOG.md has no release %s (the binary's --version)" % version)
    commands = {sub["commandName"]: sub for sub in root.get("subcommands", [])}
    default = commands.get(root.get("defaultSubcommand", ""))
    share = prefix + "/share/seqplay"
    out = ['.\\" Made by Scripts/release-texts.py from `seqplay --experimental-dump-help`; edit the help, not this.',
           '.TH SEQPLAY 1 "%s" "seqplay %s" "User Commands"' % (date, version),
           ".nh", ".ad l",
           ".SH NAME", "seqplay \\- " + roff(root.get("abstract", "")), ".SH SYNOPSIS"]
    if default is not None:
        out += [synopsis(["seqplay"], default), ".br"]
    out += ["\\fBseqplay\\fR \\fIcommand\\fR [\\fIoptions\\fR]", ".br",
            "\\fBseqplay\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR | \\fBhelp\\fR [\\fIcommand\\fR]",
            ".SH DESCRIPTION"]
    out += paragraphs(root.get("discussion") or "")
    if default is not None:
        out += [".PP", "Without a command name, \\fBseqplay\\fR runs \\fB%s\\fR: %s Its options and examples are "
                "under \\fB%s\\fR in COMMANDS." % (roff(default["commandName"]), roff(default.get("abstract", "")),
                                                 roff(default["commandName"]))]
    out += [".SH OPTIONS"]
    out += command_options(root)
    out += [".TP", "\\fB\\-\\-generate\\-completion\\-script\\fR <shell>",
            "Prints the completion script for bash, zsh or fish (installed with the package)."]
    out += [".SH COMMANDS"]
    for path, command in walk(root, ["seqplay"]):
        out += [".SS %s" % roff(" ".join(path[1:])), synopsis(path, command), ".PP", roff(command.get("abstract", ""))]
        out += paragraphs(command.get("discussion", ""))
        out += command_options(command)
    out += [".SH EXIT STATUS", "Every error is one line on standard error (\\fBseqplay: ...\\fR)."]
    for status, meaning in exit_statuses():
        out += [".TP", "\\fB%s\\fR" % status, roff(meaning)]
    out += [".SH ENVIRONMENT", ".TP", "\\fBSEQPLAY_SOUNDFONT\\fR",
            "The SoundFont to play with when no \\fB\\-\\-sf2\\fR is given.",
            ".SH FILES",
            ".TP", "\\fB%s/seqplay\\-gm.sf2\\fR" % roff(share),
            "The small General MIDI SoundFont installed with seqplay: the font played with when there is no "
            "\\fB\\-\\-sf2\\fR and no \\fBSEQPLAY_SOUNDFONT\\fR, before Debian's default General MIDI font "
            "\\fB/usr/share/sounds/sf2/default\\-GM.sf2\\fR.",
            ".TP", "\\fB%s/songs/\\fR" % roff(share), "Three shipped songs to try: \\fBseqplay %s/songs/bach\\-prelude\\-c.mid\\fR."
            % roff(share),
            ".TP", "\\fB%s/lib/systemd/user/seqplay.service\\fR" % roff(prefix),
            "A systemd user unit running \\fBseqplay serve\\fR as a sound module: "
            "\\fBsystemctl \\-\\-user enable \\-\\-now seqplay\\fR.",
            ".TP", "\\fB%s/share/doc/seqplay/\\fR" % roff(prefix),
            "The documentation: README.md, the pages of Docs/, CHANGELOG.md.",
            ".SH SEE ALSO", "\\fBfluidsynth\\fR(1), \\fBaconnect\\fR(1), \\fBjackd\\fR(1), \\fBsystemctl\\fR(1)"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------- Debian changelog ---

def debian_changelog(maintainer):
    out = []
    for version, date, text in releases():
        out.append("seqplay (%s) unstable; urgency=medium\n" % version)
        # Each bullet (or the section's prose) becomes one "  * " item, wrapped at 80 columns.
        items = re.split(r"\n(?=- )", text)
        for item in items:
            item = " ".join(line.strip() for line in item.split("\n")).lstrip("- ").replace("`", "")
            if item:
                out.append(textwrap.fill(item, width=79, initial_indent="  * ", subsequent_indent="    ",
                                         break_on_hyphens=False))
        stamp = datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=timezone.utc)
        out.append("\n -- %s  %s\n" % (maintainer, stamp.strftime("%a, %d %b %Y %H:%M:%S +0000")))
    return "\n".join(out)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "manpage":
        sys.stdout.write(manpage(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "debian-changelog":
        sys.stdout.write(debian_changelog(sys.argv[2]))
    else:
        fail("usage: release-texts.py manpage BINARY PREFIX | debian-changelog MAINTAINER")


if __name__ == "__main__":
    main()
