// Play: start a session, act through the engine-checked API, render the table.
"use strict";

let view = null;

function raiseBounds() {
  return view && view.legal && view.legal.min_raise_to !== null ? view.legal : null;
}

function setAmount(amount) {
  const legal = raiseBounds();
  if (!legal) return;
  const clamped = Math.max(legal.min_raise_to, Math.min(legal.max_raise_to, Math.round(amount)));
  document.getElementById("raise-amount").value = clamped;
  document.getElementById("raise-slider").value = clamped;
}

function potFraction(fraction) {
  // A raise to: the current bet, plus the fraction of the pot after calling.
  const legal = view.legal;
  if (fraction === "all") return legal.max_raise_to;
  return legal.current_bet + fraction * (view.pot + legal.call);
}

function render(next) {
  view = next;
  document.getElementById("game").hidden = false;
  document.getElementById("records").hidden = false;
  renderTable(view);
  const legal = view.legal;
  const mine = legal !== null;
  const fold = document.getElementById("btn-fold");
  const call = document.getElementById("btn-call");
  const raise = document.getElementById("btn-raise");
  fold.disabled = !mine || !legal.fold;
  call.disabled = !mine;
  call.textContent = mine && legal.call ? `Call ${legal.call}` : "Check";
  const canRaise = mine && legal.min_raise_to !== null;
  raise.disabled = !canRaise;
  document.getElementById("raise-box").hidden = !canRaise || legal.fixed_limit;
  if (canRaise) {
    const word = legal.current_bet > 0 ? "Raise to" : "Bet";
    const slider = document.getElementById("raise-slider");
    slider.min = legal.min_raise_to;
    slider.max = legal.max_raise_to;
    setAmount(legal.min_raise_to);
    raise.textContent = legal.fixed_limit ? `${word} ${legal.min_raise_to}` : word;
  } else {
    raise.textContent = "Raise";
  }
  document.getElementById("btn-next").hidden = !view.hand_over || view.hand >= view.max_hands;
  const toAct = view.seats.find((s) => s.to_act);
  document.getElementById("turn").textContent = view.hand_over ? "Hand over." : mine ? "Your turn." : toAct ? `${toAct.name} to act.` : "";
  renderHistory(view).catch((e) => showError(e.message));
}

async function send(move, amount) {
  showError("");
  try {
    const body = amount === undefined ? { move } : { move, amount };
    render(await api("POST", `/api/play/${view.id}/act`, body));
  } catch (error) {
    showError(error.message);
  }
}

document.getElementById("start").addEventListener("click", async () => {
  showError("");
  try {
    render(await api("POST", "/api/play", {
      opponents: [document.getElementById("opponent").value],
      seats: Number(document.getElementById("table-size").value),
      betting: document.getElementById("betting").value,
      name: document.getElementById("name").value,
    }));
  } catch (error) {
    showError(error.message);
  }
});
document.getElementById("btn-fold").addEventListener("click", () => send("fold"));
document.getElementById("btn-call").addEventListener("click", () => send(view.legal && view.legal.call ? "call" : "check"));
document.getElementById("btn-raise").addEventListener("click", () => {
  const legal = view.legal;
  send("raise", legal.fixed_limit ? legal.min_raise_to : Number(document.getElementById("raise-amount").value));
});
document.getElementById("raise-slider").addEventListener("input", (e) => setAmount(Number(e.target.value)));
document.getElementById("raise-amount").addEventListener("change", (e) => setAmount(Number(e.target.value)));
for (const button of document.querySelectorAll(".frac")) {
  button.addEventListener("click", () => {
    const frac = button.dataset.frac;
    setAmount(potFraction(frac === "all" ? "all" : Number(frac)));
  });
}
document.getElementById("btn-next").addEventListener("click", async () => {
  showError("");
  try {
    render(await api("POST", `/api/play/${view.id}/next`));
  } catch (error) {
    showError(error.message);
  }
});
fillAgents(document.getElementById("opponent"), "tag").catch((e) => showError(e.message));
