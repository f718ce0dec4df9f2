// Study: the population's action frequencies by spot, over the server's ingested rows.
"use strict";

const DEFAULT_GROUPS = ["street", "pot_type"];
const COLUMN_LABELS = {
  position: "position",
  relative_position: "in or out of position",
  pot_type: "pot type",
  street: "street",
  players_in_pot: "players in the pot",
  depth: "effective stack (bb)",
  facing: "size bucket (bet faced, fraction of the pot)",
};

function columnLabel(column) {
  return COLUMN_LABELS[column] || column;
}

function percent(value) {
  return value === null || value === undefined ? "" : (100 * value).toFixed(1) + "%";
}

async function show() {
  showError("");
  const params = new URLSearchParams();
  params.set("by", [...document.querySelectorAll("#groups input:checked")].map((i) => i.value).join(","));
  for (const select of document.querySelectorAll("#filters select")) {
    if (select.value) params.set(select.dataset.column, select.value);
  }
  params.set("weighting", document.getElementById("weighting").value);
  params.set("min_decisions", document.getElementById("min-decisions").value || "1");
  try {
    const table = await api("GET", `/api/study/spots?${params}`);
    const head = table.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
    const rate = (c) => !c.startsWith("n_") && !table.by.includes(c);
    const rows = table.rows.map((row) => `<tr>${row.map((v, i) => `<td>${escapeHtml(rate(table.columns[i]) ? percent(v) : v ?? "")}</td>`).join("")}</tr>`);
    document.getElementById("table").innerHTML = `<table class="hands" id="spots"><tr>${head}</tr>${rows.join("")}</table>`;
  } catch (error) {
    showError(error.message);
  }
}

async function setUp() {
  const options = await api("GET", "/api/study/options");
  document.getElementById("source").textContent = `${options.folder}: ${options.decisions.toLocaleString()} decisions`;
  document.getElementById("groups").innerHTML += options.columns.map((c) =>
    `<label title="${escapeHtml(columnLabel(c))}"><input type="checkbox" value="${c}" ${DEFAULT_GROUPS.includes(c) ? "checked" : ""}> ${c}</label>`).join("");
  document.getElementById("filters").innerHTML += Object.entries(options.values).map(([column, values]) =>
    `<label>${escapeHtml(columnLabel(column))} <select data-column="${column}"><option value="">any</option>${values.map((v) => `<option>${escapeHtml(v)}</option>`).join("")}</select></label>`).join("");
  await show();
}

document.getElementById("show").addEventListener("click", show);
setUp().catch((e) => showError(e.message));
