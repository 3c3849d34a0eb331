// What changed between two rendered views, as JSON Pointers (the rules of GET …/steps/{k}'s
// `changes`, api/replays.py): for marking a table that came live, with no step detail asked for.

const IGNORED = new Set(["legal", "version"]);

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function escape(key) {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The paths whose values differ: objects key by key, lists of objects (or lists) item by item
 * when their lengths agree, anything else whole. */
export function changedPaths(before, after, path = "") {
  if (same(before, after)) return [];
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].filter((key) => path || !IGNORED.has(key)).flatMap((key) => changedPaths(before[key], after[key], `${path}/${escape(key)}`));
  }
  const nested = (list) => list.some((item) => item !== null && typeof item === "object");
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length && (nested(before) || nested(after))) {
    return before.flatMap((item, index) => changedPaths(item, after[index], `${path}/${index}`));
  }
  return [{ path }];
}
