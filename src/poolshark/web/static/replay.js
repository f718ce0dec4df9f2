// Replay: a hand decision by decision, the ranges as 13x13 heatmaps (chart13.js).
"use strict";

const HUES = { range: [0, 90, 50], fold: [40, 90, 170], call: [0, 120, 60], raise: [190, 30, 30] };
const LIGHT = [236, 236, 236];
const SOURCE_NAMES = { uniform: "the uniform deal", oracle: "the range oracle", model: "the population model's posterior", exact: "the exact pool posterior" };
const state = { replay: null, index: 0 };

function percent(value) {
  return value === null || value === undefined ? "n/a" : (100 * value).toFixed(1) + "%";
}

// One 13x13 chart (values: 169, in [0, 1], null where blocked) shaded from light grey toward
// the hue: a placeholder now, drawn by the shared chart13.js once it is in the page.
const pendingCharts = [];
function heatmap(values, hue, title, sub, extra) {
  pendingCharts.push({ values, hue });
  const holder = `<div class="grid13" data-chart="${escapeHtml(title)}" data-pending="${pendingCharts.length - 1}"></div>`;
  return `<div class="chart ${extra || ""}"><div class="title">${escapeHtml(title)}</div><div class="sub">${escapeHtml(sub || "")}</div>${holder}</div>`;
}

// Draw every placeholder under `root` with drawChart13.
function drawCharts(root) {
  for (const holder of root.querySelectorAll(".grid13[data-pending]")) {
    const { values, hue } = pendingCharts[Number(holder.dataset.pending)];
    drawChart13(holder, values, {
      palette: [[0, LIGHT], [1, hue]],
      size: 18,
      cellText: () => "",
      tooltip: (name, value) => `${name}: ${value === null ? "blocked" : percent(value)}`,
    });
    delete holder.dataset.pending;
  }
  pendingCharts.length = 0;
}

function cardsHtml(text) {
  return text ? text.split(" ").map(cardHtml).join("") : "";
}

function render() {
  const replay = state.replay;
  const decision = replay.decisions[state.index];
  const source = document.getElementById("source").value;
  document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
  document.getElementById("stage").hidden = false;
  document.getElementById("counter").textContent = `decision ${state.index + 1} of ${replay.decisions.length}`;
  document.getElementById("prev").disabled = state.index === 0;
  document.getElementById("next").disabled = state.index === replay.decisions.length - 1;
  document.getElementById("street").textContent = decision.street;
  document.getElementById("board").innerHTML = cardsHtml(decision.board) || '<span class="muted">no board yet</span>';
  document.getElementById("pot").textContent = `Pot ${decision.pot}`;
  document.getElementById("action").textContent = decision.action;
  const legal = decision.legal;
  const options = [legal.can_fold ? "fold" : null, legal.can_check ? "check" : `call ${legal.call}`,
    legal.min_raise_to === null ? null : `${legal.can_check && decision.street !== "preflop" ? "bet" : "raise to"} ${legal.min_raise_to}..${legal.max_raise_to}`].filter(Boolean);
  document.getElementById("legal").textContent = `could: ${options.join(", ")}`;
  document.getElementById("source-name").textContent = SOURCE_NAMES[source] || source;

  const actor = decision.players.find((p) => p.seat === decision.actor);
  const prior = actor.ranges[source];
  const charts = [];
  if (prior) charts.push(heatmap(prior, HUES.range, `${decision.actor_name}: range before`, SOURCE_NAMES[source], "actor"));
  const figure = decision.breakdown[source];
  if (figure) {
    for (const group of ["fold", "call", "raise"]) {
      const mark = group === decision.group ? " (taken)" : "";
      charts.push(heatmap(figure.support[group], HUES[group], `${group}${mark}: ${percent(figure.aggregate[group])}`, "range x P(" + group + " | hand)"));
    }
    charts.push(heatmap(figure.posterior, HUES.range, "range after the action", `after "${decision.group}"`, "actor"));
    document.getElementById("figure-note").textContent = "";
  } else {
    document.getElementById("figure-note").textContent = replay.has_model ? "(the model could not read this decision)" : "(start the server with --replay-model to see the action model's view)";
  }
  if (decision.policy) {
    for (const group of ["fold", "call", "raise"]) {
      charts.push(heatmap(decision.policy[group], HUES[group], `model P(${group} | class)`, "mean over the class's live combos", "policy"));
    }
  }
  document.getElementById("figure").innerHTML = charts.join("");
  drawCharts(document.getElementById("figure"));

  document.getElementById("players").innerHTML = decision.players.map((player) => {
    const range = player.ranges[source];
    if (!range) return "";
    const equity = player.actor_equity[source];
    const cards = player.cards ? ` [${player.cards}]` : "";
    const sub = `stack ${player.stack}${player.bet ? ", bet " + player.bet : ""}` + (equity !== undefined ? `; actor's equity vs this range ${percent(equity)}` : "");
    return heatmap(range, HUES.range, `${player.name}${cards}`, sub, player.seat === decision.actor ? "actor" : "");
  }).join("");
  drawCharts(document.getElementById("players"));
  document.getElementById("decision-notes").textContent = decision.notes.join("; ");
}

function step(delta) {
  if (!state.replay) return;
  const next = state.index + delta;
  if (next < 0 || next >= state.replay.decisions.length) return;
  state.index = next;
  render();
}

async function load() {
  showError("");
  const id = document.getElementById("hand").value;
  if (!id) return;
  document.getElementById("load").disabled = true;
  try {
    state.replay = await api("GET", `/api/replay/hands/${encodeURIComponent(id)}`);
    state.index = 0;
    const select = document.getElementById("source");
    const previous = select.value;
    select.innerHTML = state.replay.sources.map((s) => `<option value="${s}">${escapeHtml(SOURCE_NAMES[s] || s)}</option>`).join("");
    const preferred = ["oracle", "exact", "model", "uniform"].find((s) => state.replay.sources.includes(s));
    select.value = state.replay.sources.includes(previous) ? previous : preferred;
    render();
  } catch (error) {
    showError(error.message);
  } finally {
    document.getElementById("load").disabled = false;
  }
}

function fillHands(hands) {
  document.getElementById("hand").innerHTML = hands.map((h) =>
    `<option value="${escapeHtml(h.id)}">${escapeHtml(h.title)} \u00b7 ${h.decisions} decisions</option>`).join("");
}

async function upload() {
  showError("");
  const text = document.getElementById("upload-text").value;
  try {
    const answer = await api("POST", "/api/replay/upload", { text });
    const listing = await api("GET", "/api/replay/hands");
    fillHands(listing.hands);
    document.getElementById("hand").value = answer.hands[0].id;
    document.getElementById("upload-note").textContent = `${answer.hands.length} hand(s) added`;
    await load();
  } catch (error) {
    showError(error.message);
  }
}

async function setUp() {
  const listing = await api("GET", "/api/replay/hands");
  fillHands(listing.hands);
  document.getElementById("upload-text").maxLength = listing.upload_chars;
  document.getElementById("notes").textContent = listing.notes.join("; ");
  if (!listing.hands.length) showError("no hands to replay: upload one, or start the server with --replay-histories or --replay-pool");
}

document.getElementById("load").addEventListener("click", load);
document.getElementById("upload").addEventListener("click", upload);
document.getElementById("prev").addEventListener("click", () => step(-1));
document.getElementById("next").addEventListener("click", () => step(1));
document.getElementById("source").addEventListener("change", () => state.replay && render());
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
  if (event.key === "ArrowLeft") step(-1);
  if (event.key === "ArrowRight") step(1);
});
setUp().catch((e) => showError(e.message));
