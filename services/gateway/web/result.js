// A finished game's places as a table (the play and replay pages).
import { t } from "./i18n.js";

/** The result `r` ({places, scores}, by seat) as a <table>: place, name
 *  (`nameOf(seat)`), score, best place first; each row's data-seat is its seat. */
export function resultTable(r, nameOf) {
  const tbl = document.createElement("table");
  const head = tbl.createTHead().insertRow();
  for (const k of ["place", "name", "score"]) {
    const th = document.createElement("th");
    th.textContent = t(k);
    head.append(th);
  }
  const body = tbl.createTBody();
  for (const i of r.places.map((_p, i) => i).sort((a, b) => r.places[a] - r.places[b])) {
    const row = body.insertRow();
    row.dataset.seat = i;
    row.insertCell().textContent = String(r.places[i]);
    row.insertCell().textContent = nameOf(i);
    row.insertCell().textContent = String(r.scores[i]);
  }
  return tbl;
}
