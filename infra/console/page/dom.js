// Building the page's elements: every piece of data goes in as text (textContent), never as markup.
import { serviceNow } from './clock.js';

/**
 * An element with attributes and children. `attrs` keys: `class`, `testid` (data-testid), `on<event>`
 * (a listener), `dataset` (an object), and any other attribute; a false or undefined value is left out.
 * Children are elements, strings or numbers (as text); null, undefined and false are skipped.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'testid') element.dataset.testid = String(value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2), value);
    else if (name === 'value') element.value = String(value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (elements or text) to an element, skipping empty ones. */
export function append(element, children) {
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  return append(element, children);
}

/** An ISO instant as the operator reads it: `2026-11-23 18:20:05 UTC`. */
export function instant(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A duration in seconds as `1h 02m 03s`, `4m 05s` or `6s`. */
export function duration(totalSeconds) {
  const seconds = Math.max(0, Math.round(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/**
 * A live countdown to `iso` on the service's clock (`clock.js`): its text is set by
 * `tickCountdowns`, every quarter second, so a wait is seen running down between two refreshes.
 */
export function countdown(iso, testid) {
  const element = h('span', { class: 'countdown', testid, dataset: { until: iso } });
  tickOne(element, serviceNow());
  return element;
}

/** Brings every countdown on the page up to the service's now. */
export function tickCountdowns() {
  const now = serviceNow();
  for (const element of document.querySelectorAll('[data-until]')) tickOne(element, now);
}

function tickOne(element, now) {
  const until = Date.parse(element.dataset.until ?? '');
  if (Number.isNaN(until)) return;
  const left = (until - now) / 1000;
  element.textContent = left > 0 ? `in ${duration(left)}` : `passed ${duration(-left)} ago`;
  element.classList.toggle('passed', left <= 0);
}

const svgNs = 'http://www.w3.org/2000/svg';

/**
 * An SVG element with attributes and children, as `h` (`class`, `testid`, `dataset`, any other
 * attribute); text children go in as text.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...unknown} children
 * @returns {SVGElement}
 */
export function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'testid') element.setAttribute('data-testid', String(value));
    else if (name === 'dataset')
      for (const [key, item] of Object.entries(value)) element.setAttribute(`data-${key}`, String(item));
    else element.setAttribute(name, String(value));
  }
  return append(element, children);
}
