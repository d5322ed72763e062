// Small inline icons (no emoji: they look different everywhere and some systems lack them).

const PATHS = {
  clock: '<circle cx="12" cy="13" r="8" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M12 8.5V13l3 2" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/><path d="M9 2.5h6" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  bot: '<rect x="4" y="8" width="16" height="12" rx="4" fill="currentColor"/><path d="M12 3v5" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="3" r="1.8" fill="currentColor"/><circle cx="9" cy="14" r="1.8" fill="#161b24"/><circle cx="15" cy="14" r="1.8" fill="#161b24"/>',
  lock: '<rect x="5" y="10.5" width="14" height="10" rx="2.5" fill="currentColor"/><path d="M8 10.5V8a4 4 0 0 1 8 0v2.5" fill="none" stroke="currentColor" stroke-width="2.4"/>',
  trophy: '<path d="M7 3h10v6a5 5 0 0 1-10 0z" fill="currentColor"/><path d="M7 5H3.5v2a3.5 3.5 0 0 0 3.8 3.5M17 5h3.5v2a3.5 3.5 0 0 1-3.8 3.5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 14v4" stroke="currentColor" stroke-width="2.6"/><rect x="7.5" y="18" width="9" height="3" rx="1" fill="currentColor"/>',
  flag: '<path d="M5 21V3" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/><path d="M6 4h12l-3 4 3 4H6z" fill="currentColor"/>',
  first: '<path d="M5 5v14" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/><path d="M19 5L8 12l11 7z" fill="currentColor"/>',
  prev: '<path d="M17 5L6 12l11 7z" fill="currentColor"/>',
  play: '<path d="M7 4l13 8-13 8z" fill="currentColor"/>',
  pause: '<rect x="6" y="4" width="4.5" height="16" rx="1" fill="currentColor"/><rect x="13.5" y="4" width="4.5" height="16" rx="1" fill="currentColor"/>',
  next: '<path d="M3 5l9 7-9 7zM12 5l9 7-9 7z" fill="currentColor"/>',
  last: '<path d="M19 5v14" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/><path d="M5 5l11 7-11 7z" fill="currentColor"/>',
  zoomIn: '<circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M15 15l6 6M7 10h6M10 7v6" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  zoomOut: '<circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M15 15l6 6M7 10h6" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  bell: '<path d="M12 3a6 6 0 0 0-6 6v4.5L4 17h16l-2-3.5V9a6 6 0 0 0-6-6z" fill="currentColor"/><path d="M9.5 19a2.5 2.5 0 0 0 5 0" fill="none" stroke="currentColor" stroke-width="2"/>',
  bellOff: '<path d="M12 3a6 6 0 0 0-6 6v4.5L4 17h16l-2-3.5V9a6 6 0 0 0-6-6z" fill="none" stroke="currentColor" stroke-width="2"/><path d="M4 3l16 18" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  skip: '<path d="M3 5l8 7-8 7zM11 5l8 7-8 7z" fill="currentColor"/><path d="M21 5v14" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
};

/** An inline icon element: icon("clock"). */
export function icon(name, cls = "") {
  const span = document.createElement("span");
  span.className = "icon-svg" + (cls ? " " + cls : "");
  span.setAttribute("aria-hidden", "true");
  span.innerHTML = `<svg viewBox="0 0 24 24">${PATHS[name] || ""}</svg>`;
  return span;
}
