// Study: the heads-up shove/fold equilibrium at a chosen depth, as two 13x13 charts.
"use strict";

async function showShoveFold() {
  const note = document.getElementById("solver-note");
  const depth = document.getElementById("solver-depth").value;
  note.textContent = "solving\u2026";
  try {
    const data = await api("GET", `/api/charts/shove-fold?depth=${encodeURIComponent(depth)}`);
    const [shove, call] = data.charts;
    drawChart13(document.getElementById("chart-shove"), shove.frequencies, { title: shove.title, palette: data.palette });
    drawChart13(document.getElementById("chart-call"), call.frequencies, { title: call.title, palette: data.palette });
    note.textContent = `At ${data.depth_bb} bb the small blind shoves ${(100 * data.sb_shove_fraction).toFixed(1)}% of combos and the big blind calls ${(100 * data.bb_call_fraction).toFixed(1)}%; the small blind's value is ${data.sb_value_bb.toFixed(4)} bb a hand (exploitability ${data.exploitability_bb.toExponential(1)} bb).`;
    document.getElementById("solver").dataset.depth = String(data.depth_bb);
  } catch (error) {
    note.textContent = error.message;
  }
}

document.getElementById("solver-depth").addEventListener("input", (event) => {
  document.getElementById("solver-depth-shown").textContent = `${event.target.value} bb`;
});
document.getElementById("solver-depth").addEventListener("change", showShoveFold);
showShoveFold();
