#!/usr/bin/env python3
"""An independent RTP-MIDI peer for Scripts/test-network-interop: runs pymidi's AppleMIDI server on
127.0.0.1, records what seqplay's probe does to it (invitation, clock sync, MIDI, goodbye) and writes
a JSON report when the peer says goodbye or the time runs out.

usage: network-interop-pymidi-server.py PORT REPORT.json SECONDS
"""
import json
import sys
import time

from pymidi import server as pymidi_server
from pymidi.protocol import DataProtocol

port, report_path, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
report = {"connected": [], "disconnected": [], "clock_sync_counts": [], "note_on": [], "note_off": [],
          "control_change": []}

original_handle_timestamp = DataProtocol.handle_timestamp


def recording_handle_timestamp(self, data, addr):
    report["clock_sync_counts"].append(data[8])  # the CK count byte
    return original_handle_timestamp(self, data, addr)


DataProtocol.handle_timestamp = recording_handle_timestamp


class RecordingHandler(pymidi_server.Handler):
    def on_peer_connected(self, peer):
        report["connected"].append(str(peer.name))

    def on_peer_disconnected(self, peer):
        report["disconnected"].append(str(peer.name))

    def on_midi_commands(self, peer, command_list):
        for command in command_list:
            if command.command == "note_on":
                report["note_on"].append([int(command.params.key), int(command.params.velocity)])
            elif command.command == "note_off":
                report["note_off"].append([int(command.params.key), int(command.params.velocity)])
            elif command.command == "control_mode_change":
                report["control_change"].append([int(command.params.controller), int(command.params.value)])


server = pymidi_server.Server([("127.0.0.1", port)])
server.add_handler(RecordingHandler())
server._init_protocols()
print("pymidi server listening on 127.0.0.1:%d" % port, flush=True)
deadline = time.time() + seconds
while time.time() < deadline and not report["disconnected"]:
    server._loop_once(timeout=0.1)
with open(report_path, "w") as out:
    json.dump(report, out, indent=1)
