// Forms generated from JSON Schemas: a game's table options (GET /games)
// and the view's `choices` (an action that is a combination of cards or
// free text, whose schema is the whole action's).
import { t } from "./i18n.js";
import { plain } from "./optionlabels.js";

/** `schema` with a local `$ref` followed (`#/$defs/...`). */
export function resolve(schema, root) {
  let s = schema || {};
  for (let i = 0; i < 8 && s.$ref; i++) {
    const path = s.$ref.replace(/^#\//, "").split("/");
    let target = root;
    for (const p of path) target = target?.[p];
    s = { ...(target || {}), ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== "$ref")) };
  }
  if (Array.isArray(s.allOf) && s.allOf.length === 1) s = { ...resolve(s.allOf[0], root), ...s, allOf: undefined };
  return s;
}

/** `{schema, nullable}`: an `anyOf [X, {type: null}]` read as a nullable X. */
function unwrap(schema, root) {
  const s = resolve(schema, root);
  const alts = s.anyOf || s.oneOf;
  if (Array.isArray(alts)) {
    const rest = alts.filter((a) => a.type !== "null");
    if (rest.length === 1) return { schema: { ...resolve(rest[0], root), default: s.default, description: s.description, title: s.title }, nullable: rest.length < alts.length };
  }
  return { schema: s, nullable: false };
}

function labelFor(name, s, words) {
  const l = document.createElement("label");
  const span = document.createElement("span");
  span.textContent = (words?.label || s.title || name) + " ";
  l.append(span);
  return l;
}

/**
 * Whether an integer option names a seat (Maudix `first_dealer`, Mauw
 * `first_seat`): its name ends in `_seat`/`_dealer`, or its description
 * starts with "Seat". Such a value counts seats from 0; people count from 1.
 */
export function isSeatOption(name, s) {
  return s.type === "integer" && (/(^|_)(seat|dealer)$/.test(name) || /^seat\b/i.test(s.description || ""));
}

/**
 * One input per property of an object schema; returns `{node, read}`:
 * `read()` gives the values the person set (unset nullable fields: null;
 * untouched fields equal to their default are left out).
 * `labeller(value)` names enum items (cards).
 */
export function objectForm(schema, { root = schema, skip = ["type"], labeller = (v) => String(v), idPrefix = "f", seats = 0, wordsFor = () => null } = {}) {
  const node = document.createElement("div");
  const readers = [];
  const props = resolve(schema, root).properties || {};
  for (const [name, raw] of Object.entries(props)) {
    if (skip.includes(name)) continue;
    const { schema: s, nullable } = unwrap(raw, root);
    if (s.const !== undefined) { readers.push(() => [name, s.const]); continue; }
    const id = `${idPrefix}-${name}`;
    const words = wordsFor(name); // {label, hint, values} in the page's language, or null
    const named = (v) => words?.values?.[v] ?? labeller(v);
    let read;
    let field;
    if (s.type === "array") {
      const items = resolve(s.items || {}, root);
      const values = items.enum || [];
      field = document.createElement("fieldset");
      const legend = document.createElement("legend");
      // no "at least" when nothing ticked means the server's default (all of them)
      const bounds = [s.minItems && s.default !== undefined ? t("at_least", s.minItems) : "", s.maxItems ? t("at_most", s.maxItems) : ""].filter(Boolean).join(", ");
      legend.textContent = (words?.label || s.title || name) + (bounds ? ` (${bounds})` : "");
      field.append(legend);
      const boxes = values.map((v, i) => {
        const l = document.createElement("label");
        l.style.display = "inline-block";
        const box = document.createElement("input");
        box.type = "checkbox";
        box.value = i;
        box.name = name;
        l.append(box, " " + named(v));
        field.append(l);
        return box;
      });
      read = () => boxes.filter((b) => b.checked).map((b) => values[Number(b.value)]);
    } else if (s.enum) {
      field = labelFor(name, s, words);
      const sel = document.createElement("select");
      sel.id = id;
      sel.name = name;
      if (nullable) sel.append(new Option(t("none"), ""));
      for (const v of s.enum) sel.append(new Option(named(v), JSON.stringify(v)));
      if (s.default !== undefined) sel.value = s.default === null ? "" : JSON.stringify(s.default);
      field.append(sel);
      read = () => (sel.value === "" ? (nullable ? null : undefined) : JSON.parse(sel.value));
    } else if (s.type === "boolean") {
      field = labelFor(name, s, words);
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = id;
      box.name = name;
      box.checked = Boolean(s.default);
      field.prepend(box);
      read = () => box.checked;
    } else if (seats > 0 && isSeatOption(name, s)) {
      // a seat: "Seat 1"…"Seat N" of this table, sent as the 0-based index
      field = labelFor(name, s, words);
      const sel = document.createElement("select");
      sel.id = id;
      sel.name = name;
      if (nullable) sel.append(new Option(t("at_random"), ""));
      const top = Math.min(seats, s.maximum !== undefined ? s.maximum + 1 : seats);
      for (let i = Math.max(0, s.minimum || 0); i < top; i++) sel.append(new Option(t("seat_n", i + 1), String(i)));
      sel.value = s.default === null || s.default === undefined ? "" : String(s.default);
      field.append(sel);
      read = () => (sel.value === "" ? (nullable ? null : undefined) : Number(sel.value));
    } else if (s.type === "integer" || s.type === "number") {
      field = labelFor(name, s, words);
      const inp = document.createElement("input");
      inp.type = "number";
      inp.id = id;
      inp.name = name;
      if (s.minimum !== undefined) inp.min = s.minimum;
      if (s.maximum !== undefined) inp.max = s.maximum;
      if (s.type === "integer") inp.step = 1;
      if (s.default !== undefined && s.default !== null) inp.value = s.default;
      if (nullable) inp.placeholder = t("none");
      field.append(inp);
      read = () => (inp.value === "" ? (nullable ? null : undefined) : Number(inp.value));
    } else {
      field = labelFor(name, s, words);
      const inp = document.createElement("input");
      inp.type = "text";
      inp.id = id;
      inp.name = name;
      if (s.minLength) inp.minLength = s.minLength;
      if (s.maxLength) inp.maxLength = s.maxLength;
      if (typeof s.default === "string") inp.value = s.default;
      field.append(inp);
      read = () => (inp.value === "" && nullable ? null : inp.value);
    }
    const hintText = words ? words.hint : plain(s.description);
    if (hintText) {
      const hint = document.createElement("span");
      hint.className = "hint";
      hint.textContent = " " + hintText;
      field.append(hint);
    }
    node.append(field);
    readers.push(() => {
      const v = read();
      if (v === undefined) return null;
      // nothing picked for a list with no default that needs items: leave it to the server's default
      if (Array.isArray(v) && !v.length && s.default === undefined && (s.minItems || 0) > 0) return null;
      if (s.default !== undefined && JSON.stringify(v) === JSON.stringify(s.default)) return null;
      return [name, v];
    });
  }
  return { node, read: () => Object.fromEntries(readers.map((r) => r()).filter(Boolean)) };
}
