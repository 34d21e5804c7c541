// @ts-check
// Motion and sound: a card flies from the player to the pile, a pickup sweeps
// cards to the taker, announcements for going out.  prefers-reduced-motion
// turns the flights off (the table then changes at once); sounds are off until
// the player turns them on, and are made with WebAudio (no sound files).
import { store } from "./store.js";

export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** How long a turn stays on screen before the next one is shown (ms). */
export function paceMs() {
  return reducedMotion() ? 0 : 420;
}

let layer = null;

function overlay() {
  if (!layer || !layer.isConnected) {
    layer = document.createElement("div");
    layer.className = "fly-layer";
    layer.setAttribute("aria-hidden", "true");
    document.body.append(layer);
  }
  return layer;
}

/** Fly one card image from rectangle `from` to element `to`; hides `to` meanwhile. */
export function fly(src, from, to, { delay = 0, duration = 380, hideTarget = true } = {}) {
  if (reducedMotion() || !from || !to || typeof to.getBoundingClientRect !== "function") return;
  const end = to.getBoundingClientRect();
  if (!end.width || !from.width) return;
  const img = document.createElement("img");
  img.src = src;
  img.alt = "";
  img.className = "flying";
  Object.assign(img.style, {
    left: `${end.left}px`,
    top: `${end.top}px`,
    width: `${end.width}px`,
    height: `${end.height}px`,
  });
  overlay().append(img);
  const dx = from.left + from.width / 2 - (end.left + end.width / 2);
  const dy = from.top + from.height / 2 - (end.top + end.height / 2);
  const s = Math.max(0.3, Math.min(1.5, from.width / end.width));
  if (hideTarget) to.style.visibility = "hidden";
  const anim = img.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${s}) rotate(-8deg)`, opacity: 0.9 },
      { transform: "translate(0, 0) scale(1) rotate(0deg)", opacity: 1 },
    ],
    { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
  );
  const done = () => {
    img.remove();
    if (hideTarget) to.style.visibility = "";
  };
  anim.onfinish = done;
  anim.oncancel = done;
}

/** Sweep `count` cards from element `from` (the pile) to rectangle `to` (the taker). */
export function sweep(srcs, from, to) {
  if (reducedMotion() || !from || !to) return;
  const start = from.getBoundingClientRect();
  srcs.slice(0, 6).forEach((src, i) => {
    const img = document.createElement("img");
    img.src = src;
    img.alt = "";
    img.className = "flying";
    Object.assign(img.style, {
      left: `${start.left}px`,
      top: `${start.top}px`,
      width: `${start.width}px`,
      height: `${start.height}px`,
    });
    overlay().append(img);
    const dx = to.left + to.width / 2 - (start.left + start.width / 2);
    const dy = to.top + to.height / 2 - (start.top + start.height / 2);
    const anim = img.animate(
      [
        { transform: "translate(0, 0) scale(1)", opacity: 1 },
        { transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0.2 },
      ],
      { duration: 420, delay: i * 60, easing: "ease-in", fill: "both" },
    );
    anim.onfinish = () => img.remove();
    anim.oncancel = () => img.remove();
  });
}

let audio = null;

/** A short sound for "card", "pickup", "turn" or "out" when sounds are on. */
export function sound(kind) {
  if (!store.sound()) return;
  try {
    audio = audio || new AudioContext();
    const tones = { card: [660, 0.06], pickup: [220, 0.18], turn: [880, 0.12], out: [990, 0.3] }[kind];
    if (!tones) return;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = tones[0];
    osc.type = kind === "pickup" ? "sawtooth" : "sine";
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + tones[1]);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + tones[1]);
  } catch {
    /* no audio on this machine */
  }
}
