// Tokens stay in the browser: a link brings one in its fragment (#token=…), which never reaches
// the server; the page keeps it in localStorage for this game and sends it as a Bearer header.

import { api } from "./api.js";

const PREFIX = "bohnanza.tokens.";
const SEAT_LINKS = "bohnanza.seat-links.";

/** The fragment's parameters (#game=…&token=…). */
export function fragment() {
  return new URLSearchParams(window.location.hash.slice(1));
}

/** Take the token out of the fragment (so the address bar no longer shows it); null if none. */
export function takeFragmentToken() {
  const params = fragment();
  const token = params.get("token");
  if (!token) return null;
  params.delete("token");
  const rest = params.toString();
  const url = window.location.pathname + window.location.search + (rest ? `#${rest}` : "");
  window.history.replaceState(window.history.state, "", url);
  return token.trim();
}

function read(gameId) {
  try {
    return JSON.parse(window.localStorage.getItem(PREFIX + gameId)) ?? {};
  } catch {
    return {};
  }
}

/** Every token this browser holds for the game: {host: token, "seat-0": token, …}. */
export function storedTokens(gameId) {
  return read(gameId);
}

/** "host", "seat-2": the key of a viewer. */
export function perspectiveKey(viewer) {
  return viewer.kind === "seat" ? `seat-${viewer.seat}` : viewer.kind;
}

function storeToken(gameId, viewer, token) {
  const tokens = read(gameId);
  tokens[perspectiveKey(viewer)] = token;
  window.localStorage.setItem(PREFIX + gameId, JSON.stringify(tokens));
}

/** Keep the tokens a new game's answer gave (`seats`: [{seat, token}], `host`): they are shown
 * only once. */
export function rememberTokens(gameId, { seats = [], host = null }) {
  for (const { seat, token } of seats) storeToken(gameId, { kind: "seat", seat }, token);
  if (host) storeToken(gameId, { kind: "host" }, host);
}

/** Keep a new tabletop game's seat tokens ([{seat, name, token}]) for the recorder's links to
 * each seat's own table. */
export function rememberSeatLinks(gameId, seats) {
  window.localStorage.setItem(`${SEAT_LINKS}${gameId}`, JSON.stringify(seats));
}

/** The seat links `rememberSeatLinks` kept for a game ([] if none). */
export function seatLinks(gameId) {
  return JSON.parse(window.localStorage.getItem(`${SEAT_LINKS}${gameId}`) ?? "[]");
}

/** Games this browser holds a token for, with the keys held. */
export function gamesWithTokens() {
  const games = {};
  for (let i = 0; i < window.localStorage.length; i += 1) {
    const key = window.localStorage.key(i);
    if (key?.startsWith(PREFIX)) games[key.slice(PREFIX.length)] = Object.keys(read(key.slice(PREFIX.length)));
  }
  return games;
}

/** Who a token is in this game ({kind: "seat", seat: 1} or {kind: "host"}), asked of the API,
 * and remembered; an ApiError (401) for a token of another game. */
export async function adoptToken(gameId, token) {
  const view = await api(`/api/games/${gameId}/view`, { token });
  storeToken(gameId, view.viewer, token);
  return view.viewer;
}
