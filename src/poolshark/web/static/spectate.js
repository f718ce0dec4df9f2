// Spectate: the server moves the table at the chosen speed; the page polls it.
"use strict";

let view = null;
let timer = null;
let shownHands = -1;

function render(next) {
  view = next;
  document.getElementById("game").hidden = false;
  document.getElementById("records").hidden = false;
  renderTable(view);
  if (view.hands_played !== shownHands) {
    shownHands = view.hands_played;
    renderHistory(view).catch((e) => showError(e.message));
  }
}

async function poll() {
  try {
    render(await api("GET", `/api/spectate/${view.id}`));
  } catch (error) {
    showError(error.message);
    clearInterval(timer);
  }
}

async function setSpeed(value) {
  document.getElementById("speed-label").textContent = value;
  document.getElementById("pause").textContent = value > 0 ? "Pause" : "Resume";
  if (view) render(await api("POST", `/api/spectate/${view.id}/speed`, { actions_per_second: value }));
}

document.getElementById("start").addEventListener("click", async () => {
  showError("");
  const seats = Number(document.getElementById("table-size").value);
  const a = document.getElementById("agent-a").value;
  const b = document.getElementById("agent-b").value;
  const agents = Array.from({ length: seats }, (_, i) => (i % 2 === 0 ? a : b));
  try {
    clearInterval(timer);
    shownHands = -1;
    render(await api("POST", "/api/spectate", {
      agents, seats,
      betting: document.getElementById("betting").value,
      actions_per_second: Number(document.getElementById("speed").value),
    }));
    timer = setInterval(poll, 250);
  } catch (error) {
    showError(error.message);
  }
});
document.getElementById("speed").addEventListener("change", (e) => setSpeed(Number(e.target.value)).catch((err) => showError(err.message)));
document.getElementById("pause").addEventListener("click", () => {
  const slider = document.getElementById("speed");
  const paused = Number(slider.value) === 0;
  slider.value = paused ? 2 : 0;
  setSpeed(Number(slider.value)).catch((err) => showError(err.message));
});
document.getElementById("step").addEventListener("click", async () => {
  try {
    render(await api("POST", `/api/spectate/${view.id}/step`));
  } catch (error) {
    showError(error.message);
  }
});
fillAgents(document.getElementById("agent-a"), "tag").catch((e) => showError(e.message));
fillAgents(document.getElementById("agent-b"), "station").catch((e) => showError(e.message));
