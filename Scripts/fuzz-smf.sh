#!/usr/bin/env bash
# Fuzzes the SMF reader for SECONDS (default 60): Scripts/fuzz.sh smf.
exec "$(dirname "$0")/fuzz.sh" smf "${1:-60}"
