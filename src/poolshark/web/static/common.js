// Shared by every page: the API client and the table renderer. Plain JavaScript, no build.
"use strict";

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    throw new Error((data && data.detail) || `${response.status} ${response.statusText}`);
  }
  return data;
}

function showError(message) {
  document.getElementById("error").textContent = message || "";
}

const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };

function cardHtml(card) {
  if (!card) return '<span class="cardface back">??</span>';
  const suit = card[1];
  const red = suit === "h" || suit === "d" ? " red" : "";
  return `<span class="cardface${red}" data-card="${card}">${card[0]}${SUITS[suit]}</span>`;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function renderTable(view) {
  // Pages bump this after each render, so tests (and people) can wait for a new state.
  document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
  const seats = view.seats.map((seat) => {
    const classes = ["seat"];
    if (seat.to_act) classes.push("to-act");
    if (seat.folded) classes.push("folded");
    if (seat.hero) classes.push("hero");
    const marks = (seat.button ? '<span class="mark">D</span>' : "") + (seat.blind ? `<span class="mark">${seat.blind}</span>` : "");
    const cards = seat.folded ? '<span class="muted">folded</span>' : seat.cards ? seat.cards.map(cardHtml).join("") : cardHtml(null) + cardHtml(null);
    const hand = view.result && view.result.hands[seat.seat] ? `<div class="muted">${escapeHtml(view.result.hands[seat.seat])}</div>` : "";
    return `<div class="${classes.join(" ")}" data-seat="${seat.seat}">
      <div class="name">${escapeHtml(seat.name)}${marks}</div>
      <div>stack <span class="stack">${seat.stack}</span> <span class="bet">${seat.bet ? "bet " + seat.bet : ""}</span></div>
      <div class="cards">${cards}</div>${hand}
      <div class="muted">session ${seat.session_net >= 0 ? "+" : ""}${seat.session_net}</div></div>`;
  });
  document.getElementById("seats").innerHTML = seats.join("");
  document.getElementById("board").innerHTML = view.board.map(cardHtml).join("") || '<span class="muted">no board yet</span>';
  document.getElementById("pot").textContent = `Pot ${view.pot}`;
  document.getElementById("street").textContent = `Hand ${view.hand} of ${view.max_hands} \u00b7 ${view.street}`;
  document.getElementById("result").textContent = view.result ? view.result.text : "";
  document.getElementById("log").innerHTML = view.log.map((a) => `<div>[${a.street}] ${escapeHtml(a.text)}</div>`).join("");
}

async function renderHistory(view) {
  const hands = await api("GET", `/api/sessions/${view.id}/hands`);
  const rows = hands.slice(-50).reverse().map((h) => `<tr><td>#${h.hand}</td><td>${h.board}</td>${h.net.map((n) => `<td>${n > 0 ? "+" : ""}${n}</td>`).join("")}</tr>`);
  const head = `<tr><th>hand</th><th>board</th>${view.seats.map((s) => `<th>${escapeHtml(s.name)}</th>`).join("")}</tr>`;
  document.getElementById("history").innerHTML = `<table class="hands">${head}${rows.join("")}</table>`;
  document.getElementById("export-stars").href = `/api/sessions/${view.id}/export?format=pokerstars`;
  document.getElementById("export-phh").href = `/api/sessions/${view.id}/export?format=phh`;
}

async function fillAgents(select, preferred) {
  const agents = await api("GET", "/api/agents");
  select.innerHTML = agents.map((a) => `<option value="${escapeHtml(a.name)}" title="${escapeHtml(a.note)}">${escapeHtml(a.name)}</option>`).join("");
  if (preferred) select.value = preferred;
}
