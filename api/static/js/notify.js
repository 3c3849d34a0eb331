// Telling a player the table waits for them: the tab's title changes (seen from another tab),
// and, if they asked for it, a short chime (made by the browser: no sound file to load).

import { h } from "./dom.js";

const SOUND_KEY = "bohnanza.sound";
const MARK = "▶ ";
let audio = null;

function chime() {
  try {
    audio ??= new AudioContext();
    const now = audio.currentTime;
    for (const [offset, pitch] of [[0, 660], [0.16, 880]]) {
      const tone = audio.createOscillator();
      const level = audio.createGain();
      tone.frequency.value = pitch;
      level.gain.setValueAtTime(0.0001, now + offset);
      level.gain.exponentialRampToValueAtTime(0.2, now + offset + 0.02);
      level.gain.exponentialRampToValueAtTime(0.0001, now + offset + 0.3);
      tone.connect(level).connect(audio.destination);
      tone.start(now + offset);
      tone.stop(now + offset + 0.32);
    }
  } catch {
    // No sound where the browser has none to give.
  }
}

export function soundWanted() {
  return window.localStorage.getItem(SOUND_KEY) === "on";
}

/** The "sound when it is my turn" switch (remembered in this browser). */
export function soundSwitch() {
  const box = h("input", { type: "checkbox", id: "turn-sound", checked: soundWanted() });
  box.addEventListener("change", () => {
    window.localStorage.setItem(SOUND_KEY, box.checked ? "on" : "off");
    if (box.checked) chime(); // also lets the browser start its audio on this click
  });
  return h("label", { class: "switch", for: "turn-sound" }, box, " Sound when the table waits for me");
}

/** The page title for `base`, marked while the table waits for this player; a chime (if
 * wanted) when it starts to. */
export function turnNotice(base, waiting, wasWaiting) {
  document.title = waiting ? `${MARK}Your move · ${base}` : base;
  if (waiting && !wasWaiting && soundWanted()) chime();
}
