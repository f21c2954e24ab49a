// The table's sounds: your turn, a card played, a trick won, the match's end. Each is a
// short tone made here with Web Audio (no sound files to fetch, nothing to license), at a
// low volume, and never waited for. The browser lets a page sound only after the player
// has touched it (autoplay policy): the audio context is made on the first sound asked for
// after a click or a key, and a sound asked for before that is dropped.
//
// A mute switch, kept per player on this browser (store.js soundMuted): muteSwitch()
// draws it; play() says nothing while it is on.

import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { h } from "./ui.js";

/** Each sound: its notes as [frequency Hz, start s, length s], and its wave. */
const SOUNDS = Object.freeze({
  turn: { wave: "sine", notes: [[660, 0, 0.09], [880, 0.1, 0.12]] },
  card: { wave: "triangle", notes: [[220, 0, 0.05]] },
  trick: { wave: "sine", notes: [[523, 0, 0.07], [659, 0.07, 0.07], [784, 0.14, 0.1]] },
  end: { wave: "sine", notes: [[392, 0, 0.15], [523, 0.15, 0.15], [659, 0.3, 0.15], [784, 0.45, 0.3]] },
});
const VOLUME = 0.08;

let context = null;
let touched = false;
/** How many sounds were started (the tests read it: a muted table starts none). */
let started = 0;

if (typeof document !== "undefined") {
  const touch = () => {
    touched = true;
  };
  document.addEventListener("pointerdown", touch, { capture: true, once: true });
  document.addEventListener("keydown", touch, { capture: true, once: true });
}

/** The sounds started since the page opened. */
export function soundsStarted() {
  return started;
}

/** Play ``name`` (turn, card, trick, end) unless ``muted``. */
export function play(name, muted) {
  const sound = SOUNDS[name];
  if (!sound || muted || !touched) return;
  const Context = globalThis.AudioContext ?? globalThis.webkitAudioContext;
  if (!Context) return;
  try {
    context ??= new Context();
    if (context.state === "suspended") context.resume();
    const at = context.currentTime;
    for (const [frequency, start, length] of sound.notes) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = sound.wave;
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at + start);
      gain.gain.exponentialRampToValueAtTime(VOLUME, at + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + start + length);
      osc.connect(gain).connect(context.destination);
      osc.start(at + start);
      osc.stop(at + start + length + 0.02);
    }
    started += 1;
    document.documentElement.dataset.sounds = String(started);
  } catch {
    // No audio here (a locked-down browser): the table plays on in silence.
  }
}

/** The mute switch: a toggle button, pressed when muted; ``onchange(muted)`` keeps it. */
export function muteSwitch(muted, onchange) {
  const label = () => (muted ? t("table.sound.off") : t("table.sound.on"));
  const button = h("button", { type: "button", id: "mute", class: "mute", "aria-pressed": String(muted), title: label(), "aria-label": t("table.sound.mute") }, icon(muted ? "muted" : "speaker"));
  button.addEventListener("click", () => {
    muted = !muted;
    button.setAttribute("aria-pressed", String(muted));
    button.replaceChildren(icon(muted ? "muted" : "speaker"));
    button.title = label();
    onchange(muted);
  });
  return button;
}
