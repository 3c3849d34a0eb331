// Following a game live: GET /api/games/<id>/live, server-sent events read through fetch (an
// EventSource cannot send the token's Authorization header). One connection per page: each
// `update` brings the viewer's view and the steps since the last one; the server shares each
// message among everyone watching as the same viewer. The connection comes back by itself,
// resuming after the last version it had (Last-Event-ID), until the game ends.

import { ApiError } from "./api.js";

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 15000;

function parseEvent(block) {
  const event = { name: "message", data: "", id: null };
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event.name = value;
    else if (field === "data") event.data += (event.data ? "\n" : "") + value;
    else if (field === "id") event.id = value;
  }
  return event;
}

/** Follow the game: `onUpdate({version, steps, view})` for every update (the first is the view
 * now, with the steps after `after`), `onEnd()` once the game has ended, `onStatus(status,
 * error)` with "live", "reconnecting" or "refused". Returns {stop()}. */
export function follow(gameId, { token = null, query = {}, after = null, onUpdate, onEnd = () => {}, onStatus = () => {} }) {
  let stopped = false;
  let last = after;
  let controller = null;
  let wait = FIRST_RETRY_MS;

  async function read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event.name === "end") return true;
        if (event.name !== "update" || !event.data) continue;
        const update = JSON.parse(event.data);
        if (last !== null && update.version < last) continue; // older than what the page has
        last = update.version;
        onUpdate(update);
      }
    }
  }

  async function run() {
    while (!stopped) {
      controller = new AbortController();
      const url = new URL(`/api/games/${gameId}/live`, window.location.origin);
      for (const [name, value] of Object.entries(query)) if (value !== null && value !== undefined) url.searchParams.set(name, value);
      const headers = { Accept: "text/event-stream" };
      if (token) headers.Authorization = `Bearer ${token}`;
      if (last !== null) headers["Last-Event-ID"] = String(last);
      try {
        const response = await fetch(url, { headers, signal: controller.signal, cache: "no-store" });
        if (!response.ok) {
          const problem = new ApiError(response.status, await response.json().catch(() => null));
          if (response.status !== 503) {
            onStatus("refused", problem);
            return;
          }
          throw problem;
        }
        onStatus("live");
        wait = FIRST_RETRY_MS;
        if (await read(response.body)) {
          stopped = true;
          onEnd();
          return;
        }
      } catch (error) {
        if (stopped) return;
      }
      onStatus("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, LAST_RETRY_MS);
    }
  }

  run();
  return {
    stop() {
      stopped = true;
      controller?.abort();
    },
  };
}
