// Study: the fold, call and raise charts of the run's true pool, population model and exploiter.
"use strict";

async function showRanges() {
  const note = document.getElementById("ranges-note");
  const params = new URLSearchParams({
    agent: document.getElementById("ranges-agent").value,
    hero: document.getElementById("ranges-hero").value,
  });
  const opener = document.getElementById("ranges-opener").value;
  if (opener) params.set("opener", opener);
  note.textContent = "computing\u2026";
  try {
    const data = await api("GET", `/api/study/range?${params}`);
    for (const chart of data.charts) {
      drawChart13(document.getElementById(`range-${chart.name}`), chart.frequencies, { title: chart.title, palette: data.palette, size: 24 });
    }
    note.textContent = `${data.agent}, ${data.spot}: the share of each class's combos folded, called and raised (100 bb, the opener raising to 2.5 bb).`;
    document.getElementById("ranges").dataset.shown = `${data.agent}|${data.spot}`;
  } catch (error) {
    note.textContent = error.message;
  }
}

async function setUpRanges() {
  const note = document.getElementById("ranges-note");
  try {
    const options = await api("GET", "/api/study/ranges");
    if (!options.agents.length) {
      note.textContent = "The run names no agent found on this server.";
      return;
    }
    const fill = (id, values) => { document.getElementById(id).innerHTML += values.map((v) => `<option>${escapeHtml(v)}</option>`).join(""); };
    fill("ranges-agent", options.agents);
    fill("ranges-hero", options.seats);
    fill("ranges-opener", options.seats);
    document.getElementById("ranges-hero").value = "BTN";
    document.getElementById("ranges-opener").value = "CO";
    document.getElementById("ranges-form").hidden = false;
    document.getElementById("ranges-show").addEventListener("click", showRanges);
    await showRanges();
  } catch (error) {
    note.textContent = error.message;
  }
}

setUpRanges();
