import Foundation

/// The web page at `/`: 16 channel strips (instrument picker from the loaded fonts' presets, volume,
/// pan, mute, a meter moved by the notes played), master gain and the output's level, reverb and
/// chorus, panic, record, the song picker and the inputs connected. Plain HTML, CSS and JavaScript
/// built into the binary (a SwiftPM resource bundle would have to travel beside a copied binary); it
/// talks to the API and `/api/events` only, passing on the `?token=` it was opened with.
enum WebPage {
    /// Inline script and style of this page only; nothing from elsewhere; no framing by other sites.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    static let data = Data(html.utf8)

    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>seqplay</title>
<style>
:root { --bg: #15171a; --panel: #22262b; --line: #343a41; --text: #e8eaed; --dim: #9aa0a6; --accent: #4fc3f7;
        --warn: #ff7043; --ok: #66bb6a; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.35 system-ui, sans-serif; }
header { position: sticky; top: 0; z-index: 2; background: var(--panel); border-bottom: 1px solid var(--line);
         padding: 8px 10px; display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; }
h1 { font-size: 16px; margin: 0; }
#connection { font-size: 12px; color: var(--dim); }
#connection.up { color: var(--ok); }
.group { display: flex; align-items: center; gap: 6px; }
label { color: var(--dim); font-size: 12px; }
button, select, input { font: inherit; color: var(--text); background: #2d3238; border: 1px solid var(--line);
         border-radius: 6px; }
button { padding: 6px 12px; min-height: 36px; cursor: pointer; }
button.on { background: var(--accent); color: #000; border-color: var(--accent); }
button.danger { background: var(--warn); color: #000; border-color: var(--warn); font-weight: 600; }
button.rec.on { background: #e53935; color: #fff; border-color: #e53935; }
select { padding: 6px; min-height: 36px; max-width: 100%; }
input[type=range] { accent-color: var(--accent); width: 110px; }
main { padding: 10px; }
section.bar { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; margin-bottom: 10px;
              background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; }
#inputs { color: var(--dim); font-size: 12px; }
#inputs span { display: inline-block; background: #2d3238; border-radius: 10px; padding: 2px 8px; margin: 2px 4px 2px 0;
               color: var(--text); }
#error { color: var(--warn); font-size: 12px; min-height: 1em; }
#strips { display: grid; gap: 8px; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); }
.strip { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px;
         display: grid; grid-template-columns: 1fr auto; gap: 6px; align-items: center; }
.strip.muted { opacity: 0.55; }
.strip .num { font-weight: 700; }
.strip .num small { color: var(--dim); font-weight: 400; margin-left: 4px; }
.strip .name { grid-column: 1 / -1; font-size: 12px; color: var(--dim); white-space: nowrap; overflow: hidden;
               text-overflow: ellipsis; }
.strip select { grid-column: 1 / -1; width: 100%; }
.strip .slider { grid-column: 1 / -1; display: flex; align-items: center; gap: 6px; }
.strip .slider input { flex: 1; width: auto; min-width: 0; }
.strip .slider output { width: 2.5em; text-align: right; color: var(--dim); font-size: 12px; }
.meter { grid-column: 1 / -1; height: 8px; background: #111; border-radius: 4px; overflow: hidden; }
.meter div { height: 100%; width: 0; background: linear-gradient(90deg, var(--ok) 70%, #ffca28 85%, var(--warn)); }
.note { width: 10px; height: 10px; border-radius: 50%; background: #333; display: inline-block; margin-left: 6px; }
.note.lit { background: var(--accent); }
#master-meter { width: 120px; height: 10px; }
@media (max-width: 560px) {
  header { gap: 6px 10px; }
  main { padding: 6px; }
  #strips { gap: 6px; }
  .strip { padding: 6px; }
  input[type=range] { width: 90px; }
}
</style>
</head>
<body>
<header>
  <h1>seqplay</h1>
  <span id="connection">connecting…</span>
  <div class="group"><label for="gain">gain</label>
    <input id="gain" type="range" min="0" max="2" step="0.01"><output id="gain-value"></output></div>
  <div class="group"><div id="master-meter" class="meter"><div></div></div></div>
  <button id="panic" class="danger" title="All notes off on every channel">Panic</button>
</header>
<main>
  <section class="bar">
    <div class="group"><button id="reverb">Reverb</button>
      <input id="reverb-level" type="range" min="0" max="1" step="0.01" aria-label="reverb level"></div>
    <div class="group"><button id="chorus">Chorus</button>
      <input id="chorus-level" type="range" min="0" max="10" step="0.1" aria-label="chorus level"></div>
    <div class="group"><button id="record" class="rec">Record</button><span id="record-info"></span></div>
    <div class="group"><label for="song">song</label><select id="song"><option value="">(no song)</option></select>
      <button id="song-play">Play</button><button id="song-stop">Stop</button></div>
  </section>
  <section class="bar"><div id="inputs">inputs: <em>none</em></div></section>
  <div id="error"></div>
  <div id="strips"></div>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token");
const headers = token ? { "Authorization": "Bearer " + token } : {};
let state = null;
let presets = [];          // [{font, bank, program, name}]
const strips = [];         // per channel (0-15): elements
const dragging = new Set(); // controls the user is moving: not overwritten by the server's echo

function $(id) { return document.getElementById(id); }
function showError(text) { $("error").textContent = text || ""; }

async function api(method, path, body) {
  const options = { method, headers: Object.assign({}, headers) };
  if (body !== undefined) { options.headers["Content-Type"] = "application/json"; options.body = JSON.stringify(body); }
  const response = await fetch(path, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (!response.ok) {
    showError((json && json.error) || (response.status + " " + response.statusText));
    throw new Error("HTTP " + response.status);
  }
  showError("");
  return json;
}

function post(path, body) { return api("POST", path, body === undefined ? {} : body).then(applyState, () => {}); }

// A slider sends at most one request per 60 ms while it moves, and its last value when released.
function throttled(send) {
  let timer = null, pending = null;
  return value => {
    pending = value;
    if (timer) return;
    send(pending); pending = null;
    timer = setTimeout(function flush() {
      timer = null;
      if (pending !== null) { send(pending); pending = null; timer = setTimeout(flush, 60); }
    }, 60);
  };
}

function presetKey(font, bank, program) { return font + ":" + bank + ":" + program; }

function collectPresets(fonts) {
  const list = [];
  (fonts || []).forEach(font => {
    (font.presets || []).forEach(p => list.push({ font: font.id, fontName: font.name + " (" + font.id + ")",
                                                  bank: p.bank, program: p.program, name: p.name }));
  });
  return list;
}

function fillInstrumentPicker(select) {
  select.textContent = "";
  const groups = new Map();
  presets.forEach(p => {
    let group = groups.get(p.font);
    if (!group) { group = document.createElement("optgroup"); group.label = p.fontName; groups.set(p.font, group); select.append(group); }
    const option = document.createElement("option");
    option.value = presetKey(p.font, p.bank, p.program);
    option.textContent = String(p.bank).padStart(3, "0") + ":" + String(p.program).padStart(3, "0") + " " + p.name;
    group.append(option);
  });
}

function buildStrips() {
  const container = $("strips");
  for (let i = 0; i < 16; i++) {
    const channel = i + 1;
    const strip = document.createElement("div");
    strip.className = "strip";
    strip.dataset.channel = channel;
    strip.innerHTML = `<span class="num">${channel}<span class="note"></span></span>
      <button class="mute">M</button>
      <span class="name"></span>
      <select class="instrument" aria-label="instrument of channel ${channel}"></select>
      <div class="slider"><label>vol</label><input class="volume" type="range" min="0" max="127" step="1"><output></output></div>
      <div class="slider"><label>pan</label><input class="pan" type="range" min="0" max="127" step="1"><output></output></div>
      <div class="meter"><div></div></div>`;
    container.append(strip);
    const elements = { strip, name: strip.querySelector(".name"), instrument: strip.querySelector(".instrument"),
      volume: strip.querySelector(".volume"), volumeValue: strip.querySelector(".volume + output"),
      pan: strip.querySelector(".pan"), panValue: strip.querySelector(".pan + output"),
      mute: strip.querySelector(".mute"), meter: strip.querySelector(".meter div"), note: strip.querySelector(".note"),
      level: 0 };
    strips.push(elements);
    elements.instrument.addEventListener("change", () => {
      const [font, bank, program] = elements.instrument.value.split(":").map(Number);
      if (Number.isInteger(font)) post("/api/channels/" + channel, { font, bank, program });
    });
    const sendVolume = throttled(v => post("/api/channels/" + channel, { volume: v }));
    const sendPan = throttled(v => post("/api/channels/" + channel, { pan: v }));
    for (const [input, output, send] of [[elements.volume, elements.volumeValue, sendVolume], [elements.pan, elements.panValue, sendPan]]) {
      input.addEventListener("input", () => { dragging.add(input); output.textContent = input.value; send(Number(input.value)); });
      input.addEventListener("change", () => { dragging.delete(input); send(Number(input.value)); });
    }
    elements.mute.addEventListener("click", () => {
      post("/api/channels/" + channel, { mute: !elements.mute.classList.contains("on") });
    });
  }
}

function setSlider(input, output, value) {
  if (dragging.has(input) || value === undefined || value === null) return;
  input.value = value;
  if (output) output.textContent = typeof value === "number" && !Number.isInteger(value) ? value.toFixed(2) : value;
}

function renderChannel(c) {
  const e = strips[c.channel - 1];
  if (!e) return;
  const key = presetKey(c.font === null ? "none" : c.font, c.bank, c.program);
  if (![...e.instrument.options].some(o => o.value === key)) {
    const option = document.createElement("option");
    option.value = key;
    option.textContent = String(c.bank).padStart(3, "0") + ":" + String(c.program).padStart(3, "0") + " " + (c.name || "(none)");
    e.instrument.prepend(option);
  }
  e.instrument.value = key;
  e.name.textContent = c.name || "";
  e.name.title = c.name || "";
  setSlider(e.volume, e.volumeValue, c.volume);
  setSlider(e.pan, e.panValue, c.pan);
  e.mute.classList.toggle("on", !!c.mute);
  e.strip.classList.toggle("muted", !!c.mute);
}

function applyState(s) {
  if (!s || !Array.isArray(s.channels)) return;
  state = s;
  renderFonts(s.fonts);
  s.channels.forEach(renderChannel);
  renderGain(s.gain);
  renderReverb(s.reverb);
  renderChorus(s.chorus);
  renderRecording(s.recording);
  renderInputs(s.inputs);
  renderSong(s.song);
}

function renderGain(gain) {
  if (typeof gain !== "number") return;
  $("gain").max = Math.max(2, gain);
  setSlider($("gain"), $("gain-value"), gain);
}

function renderReverb(reverb) {
  if (!reverb) return;
  $("reverb").classList.toggle("on", !!reverb.enabled);
  setSlider($("reverb-level"), null, reverb.level);
}

function renderChorus(chorus) {
  if (!chorus) return;
  $("chorus").classList.toggle("on", !!chorus.enabled);
  setSlider($("chorus-level"), null, chorus.level);
}

function renderRecording(recording) {
  const active = !!(recording && recording.active);
  $("record").classList.toggle("on", active);
  $("record").textContent = active ? "Stop recording" : "Record";
  $("record-info").textContent = recording && recording.path ? recording.path.split("/").pop() : "";
}

function renderInputs(inputs) {
  inputs = inputs || [];
  $("inputs").textContent = "inputs: ";
  if (inputs.length === 0) $("inputs").insertAdjacentHTML("beforeend", "<em>none</em>");
  inputs.forEach(input => {
    const span = document.createElement("span");
    span.textContent = input.name;
    $("inputs").append(span);
  });
}

function renderSong(song) {
  $("song-play").classList.toggle("on", !!(song && song.playing));
  if (song && song.path) {
    if (![...$("song").options].some(o => o.value === song.path)) {
      const option = document.createElement("option");
      option.value = song.path;
      option.textContent = song.path.split("/").pop();
      $("song").append(option);
    }
    $("song").value = song.path;
  }
}

function renderFonts(fonts) {
  const newPresets = collectPresets(fonts);
  if (JSON.stringify(newPresets) === JSON.stringify(presets)) return;
  presets = newPresets;
  strips.forEach(e => fillInstrumentPicker(e.instrument));
  if (state) state.channels.forEach(renderChannel);
}

// One message of /api/events: the state, a ControlEvent, levels or notes.
function onEvent(message) {
  if (state) {
    switch (message.type) {
      case "channel": state.channels[message.channel.channel - 1] = message.channel; renderChannel(message.channel); return;
      case "fonts": state.fonts = message.fonts; renderFonts(message.fonts); return;
      case "gain": state.gain = message.gain; renderGain(message.gain); return;
      case "reverb": state.reverb = message.reverb; renderReverb(message.reverb); return;
      case "chorus": state.chorus = message.chorus; renderChorus(message.chorus); return;
      case "inputs": state.inputs = message.inputs; renderInputs(message.inputs); return;
      case "song": state.song = message.song; renderSong(message.song); return;
      case "recording": state.recording = message.recording; renderRecording(message.recording); return;
      case "panic": strips.forEach(e => { e.note.classList.remove("lit"); e.level = 0; }); return;
    }
  }
  switch (message.type) {
    case "state": applyState(message.state); break;
    case "levels": {
      (message.channels || []).forEach((level, i) => { if (strips[i]) strips[i].level = Math.max(strips[i].level, level); });
      const master = message.master || [];
      const peak = master.length ? Math.max(...master) : -Infinity;
      $("master-meter").firstElementChild.style.width = meterWidth(peak) + "%";
      break;
    }
    case "notes":
      message.notes.forEach(note => {
        const e = strips[note.channel - 1];
        if (!e) return;
        const held = e.held || (e.held = new Set());
        if (note.velocity > 0) {
          held.add(note.key);
          const volume = state ? state.channels[note.channel - 1].volume / 127 : 1;
          e.level = Math.max(e.level, note.velocity / 127 * volume);
        } else held.delete(note.key);
        e.note.classList.toggle("lit", held.size > 0);
      });
      break;
  }
}

function meterWidth(db) { return !isFinite(db) ? 0 : Math.max(0, Math.min(100, (db + 60) / 60 * 100)); }

// Channel meters fall smoothly between messages.
function animateMeters() {
  strips.forEach(e => { e.meter.style.width = (e.level * 100) + "%"; e.level = Math.max(0, e.level - 0.03); });
  requestAnimationFrame(animateMeters);
}

function connectEvents() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/events" + (token ? "?token=" + encodeURIComponent(token) : "");
  const socket = new WebSocket(url);
  socket.onopen = () => { $("connection").textContent = "live"; $("connection").className = "up"; };
  socket.onmessage = m => { try { onEvent(JSON.parse(m.data)); } catch (e) { /* one bad message is skipped */ } };
  socket.onclose = () => {
    $("connection").textContent = "reconnecting…"; $("connection").className = "";
    setTimeout(() => { connectEvents(); api("GET", "/api/state").then(applyState, () => {}); }, 1000);
  };
}

async function loadSongs() {
  try {
    const result = await api("GET", "/api/songs");
    const select = $("song");
    (result.songs || []).forEach(song => {
      const option = document.createElement("option");
      option.value = song.path;
      option.textContent = song.title || song.path.split("/").pop();
      select.append(option);
    });
    if (state) applyState(state);
  } catch (e) { /* no media library: the picker stays empty */ }
}

function wireControls() {
  const sendGain = throttled(v => post("/api/gain", { gain: v }));
  $("gain").addEventListener("input", () => { dragging.add($("gain")); $("gain-value").textContent = Number($("gain").value).toFixed(2); sendGain(Number($("gain").value)); });
  $("gain").addEventListener("change", () => { dragging.delete($("gain")); sendGain(Number($("gain").value)); });
  $("panic").addEventListener("click", () => post("/api/panic"));
  $("reverb").addEventListener("click", () => post("/api/reverb", { enabled: !$("reverb").classList.contains("on") }));
  $("chorus").addEventListener("click", () => post("/api/chorus", { enabled: !$("chorus").classList.contains("on") }));
  const sendReverb = throttled(v => post("/api/reverb", { level: v }));
  const sendChorus = throttled(v => post("/api/chorus", { level: v }));
  for (const [input, send] of [[$("reverb-level"), sendReverb], [$("chorus-level"), sendChorus]]) {
    input.addEventListener("input", () => { dragging.add(input); send(Number(input.value)); });
    input.addEventListener("change", () => { dragging.delete(input); send(Number(input.value)); });
  }
  $("record").addEventListener("click", () => post($("record").classList.contains("on") ? "/api/recording/stop" : "/api/recording", {}));
  $("song-play").addEventListener("click", () => { if ($("song").value) post("/api/song", { path: $("song").value }); });
  $("song-stop").addEventListener("click", () => post("/api/song/stop", {}));
}

buildStrips();
wireControls();
api("GET", "/api/state").then(applyState, () => {});
loadSongs();
connectEvents();
requestAnimationFrame(animateMeters);
</script>
</body>
</html>
"""#
}
