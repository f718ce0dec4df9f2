// Study: where the run's exploiter earns against each field, spot by spot (stored attribution).
"use strict";

const EDGE_TOP = 16; // bars drawn per field (largest contributions); the table has every spot
const SHARE_ORDER = ["fold", "call", "raise", "all-in"];

function signed(value, digits = 1) {
  return (value >= 0 ? "+" : "") + value.toFixed(digits);
}

function rate(estimate) {
  const [low, high] = estimate.ci95;
  return `${signed(estimate.bb_per_100)} \u00b1 ${((high - low) / 2).toFixed(1)}`;
}

function shares(values) {
  if (!values) return "";
  return SHARE_ORDER.map((name) => (100 * (values[name] || 0)).toFixed(0)).join("/");
}

// A horizontal bar per row: the contribution in bb/100 from zero, its 95% interval as a whisker.
function edgeBars(rows, label) {
  const width = 760, left = 150, right = 20, bar = 16, gap = 6, top = 22;
  const extent = Math.max(1, ...rows.flatMap((r) => r.contribution.ci95.map(Math.abs)));
  const scale = (value) => left + ((value + extent) / (2 * extent)) * (width - left - right);
  const height = top + rows.length * (bar + gap) + 8;
  const zero = scale(0);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" class="edge-bars" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(label)}">`];
  parts.push(`<text x="${zero}" y="12" font-size="11" text-anchor="middle" fill="#6b7580">0 bb/100</text>`);
  parts.push(`<text x="${width - right}" y="12" font-size="11" text-anchor="end" fill="#6b7580">${signed(extent, 0)}</text>`);
  parts.push(`<text x="${left}" y="12" font-size="11" text-anchor="start" fill="#6b7580">${signed(-extent, 0)}</text>`);
  rows.forEach((row, i) => {
    const y = top + i * (bar + gap);
    const value = row.contribution.bb_per_100;
    const [low, high] = row.contribution.ci95;
    const x = Math.min(zero, scale(value));
    const colour = value >= 0 ? "#2e7d32" : "#b3261e";
    parts.push(`<g class="edge-bar" data-spot="${escapeHtml(row.spot)}"><title>${escapeHtml(row.spot)}: ${rate(row.contribution)} bb/100 (95%), ${(100 * row.frequency).toFixed(1)}% of hands</title>`);
    parts.push(`<text x="${left - 6}" y="${y + bar - 4}" font-size="12" text-anchor="end">${escapeHtml(row.spot)}</text>`);
    parts.push(`<rect x="${x.toFixed(1)}" y="${y}" width="${Math.abs(scale(value) - zero).toFixed(1)}" height="${bar}" fill="${colour}" opacity="0.8"/>`);
    parts.push(`<line x1="${scale(low).toFixed(1)}" x2="${scale(high).toFixed(1)}" y1="${y + bar / 2}" y2="${y + bar / 2}" stroke="#1d232a" stroke-width="1.5"/>`);
    for (const end of [low, high]) {
      parts.push(`<line x1="${scale(end).toFixed(1)}" x2="${scale(end).toFixed(1)}" y1="${y + 3}" y2="${y + bar - 3}" stroke="#1d232a" stroke-width="1.5"/>`);
    }
    parts.push("</g>");
  });
  parts.push(`<line x1="${zero}" x2="${zero}" y1="16" y2="${height - 4}" stroke="#6b7580" stroke-dasharray="3 3"/></svg>`);
  return parts.join("");
}

function edgeTable(field) {
  const head = ["spot (first preflop decision)", "share of hands", "bb/100 (95%)", "bb per hand there", "exploiter F/C/R/A %", "field F/C/R/A %"]
    .map((h) => `<th>${h}</th>`).join("");
  const rows = field.spots.map((s) => `<tr><td>${escapeHtml(s.spot)}</td><td>${(100 * s.frequency).toFixed(1)}%</td>
    <td>${rate(s.contribution)}</td><td>${signed(s.average_bb.mean, 2)}</td><td>${shares(s.exploiter_actions)}</td>
    <td>${s.field_decisions ? shares(s.field_actions) : ""}</td></tr>`);
  const total = `<tr><th>total</th><th>100%</th><th>${rate(field.total)}</th><th>${signed(field.total.bb_per_100 / 100, 2)}</th><th></th><th></th></tr>`;
  const streets = field.streets.map((s) => `<tr><td>${escapeHtml(s.street)}</td><td>${(100 * s.frequency).toFixed(1)}%</td><td>${rate(s.contribution)}</td></tr>`);
  return `<table class="hands edge-spots">${`<tr>${head}</tr>`}${rows.join("")}${total}</table>
    <h3>By the street where the hand ended</h3>
    <table class="hands edge-streets"><tr><th>street</th><th>share of hands</th><th>bb/100 (95%)</th></tr>${streets.join("")}</table>`;
}

function comparisonTable(rows) {
  if (!rows.length) return "";
  const body = rows.slice(0, 12).map((r) => `<tr${r.disagree ? ' class="disagree"' : ""}><td>${escapeHtml(r.spot)}</td>
    <td>${signed(r.model)}</td><td>${signed(r.pool)}</td>
    <td>${signed(r.difference)} [${signed(r.difference_ci95[0])}, ${signed(r.difference_ci95[1])}]</td><td>${r.disagree ? "yes" : ""}</td></tr>`);
  return `<h3>Where the model and the true pool pay differently</h3>
    <p class="muted">Model minus pool in bb/100 with its 95% interval; "yes" where the interval excludes zero (an edge the model promises that the pool does not pay is over-exploitation).</p>
    <table class="hands edge-comparison"><tr><th>spot</th><th>vs model</th><th>vs pool</th><th>difference (95%)</th><th>differs</th></tr>${body.join("")}</table>`;
}

function showField(edge, index) {
  const field = edge.fields[index];
  const bars = field.spots.slice(0, EDGE_TOP);
  document.getElementById("edge-summary").textContent =
    `${field.label} (${field.field}): ${field.hands.toLocaleString()} hands, ${rate(field.total)} bb/100 (95%); the spots add up to ${signed(field.sum_of_contributions ?? field.total.bb_per_100)}.`;
  document.getElementById("edge-bars").innerHTML = edgeBars(bars, `bb/100 by spot ${field.label}`);
  document.getElementById("edge-table").innerHTML = edgeTable(field);
}

async function setUpEdge() {
  const note = document.getElementById("edge-note");
  let edge;
  try {
    edge = await api("GET", "/api/study/edge");
  } catch (error) {
    note.textContent = error.message;
    return;
  }
  note.textContent = `Run ${edge.run}: the exploiter ${edge.exploiter}. Every hand is booked under the exploiter's first preflop decision (position and what it faced); a spot's bb/100 is its share of the match's win rate, so the spots add up to the total. Bars: the ${EDGE_TOP} largest, with 95% intervals.`;
  const picker = document.getElementById("edge-field");
  picker.innerHTML = edge.fields.map((f, i) => `<option value="${i}">${escapeHtml(f.label)}</option>`).join("");
  picker.hidden = edge.fields.length < 2;
  picker.addEventListener("change", () => showField(edge, Number(picker.value)));
  showField(edge, 0);
  document.getElementById("edge-comparison").innerHTML = comparisonTable(edge.comparison);
}

setUpEdge();
