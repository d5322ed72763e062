// "Your turn": the tab title says so, and (if the player turned it on) a short sound and, on
// phones, a vibration. Off by default; the sound starts only after the player touched the page,
// so browsers never block it.

import { store } from "./util.js";

let audio = null;

export function notifyOn() {
  return !!store.get("notify", false);
}

function activated() {
  return !navigator.userActivation || navigator.userActivation.hasBeenActive;
}

/** Make the audio context (only from a click or tap: browsers refuse it before). */
function unlock() {
  if (!notifyOn() || !activated()) return;
  try {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    if (audio && audio.state === "suspended") audio.resume().catch(() => {});
  } catch {
    audio = null;
  }
}

document.addEventListener("pointerdown", unlock);
document.addEventListener("keydown", unlock);

export function setNotify(on) {
  store.set("notify", !!on);
  unlock();
}

/** Two short soft tones and a buzz, if the player asked for them. */
export function yourTurnAlert() {
  if (!notifyOn()) return;
  if (navigator.vibrate && activated()) {
    try {
      navigator.vibrate([90, 60, 90]);
    } catch {
      /* not allowed here */
    }
  }
  if (!audio || audio.state !== "running") return;
  const now = audio.currentTime;
  [[660, 0], [880, 0.16]].forEach(([freq, at]) => {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.14);
    tone.connect(gain).connect(audio.destination);
    tone.start(now + at);
    tone.stop(now + at + 0.16);
  });
}
