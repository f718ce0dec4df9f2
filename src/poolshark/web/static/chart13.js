// The 13x13 preflop chart, shared by every page that shows a range. Plain JavaScript, no build.
//
// drawChart13(container, frequencies, options) draws 169 class frequencies (each in [0, 1],
// chart order as poolshark.cards.combos.CLASS_NAMES: row-major from AA, suited above the
// diagonal, offsuit below, 22 bottom-right) into `container`, replacing what was there, and
// returns the grid element. Cells are shaded on the palette of
// poolshark.report.range_chart.PALETTE (light grey at 0, mid green at 0.5, dark green at 1)
// and say their class and share ("-" for none, never rounding a partial share to 0% or 100%).
// options: title (a caption above), palette ([[at, [r, g, b]], ...], e.g. the server's),
// cellText(name, value) (the second line of a cell), tooltip(name, value), size (cell px).
"use strict";

const CHART13_RANKS = "AKQJT98765432";
const CHART13_PALETTE = [[0.0, [236, 236, 236]], [0.5, [120, 198, 121]], [1.0, [0, 90, 50]]];

function chart13ClassName(row, column) {
  const high = CHART13_RANKS[Math.min(row, column)];
  const low = CHART13_RANKS[Math.max(row, column)];
  if (row === column) return high + low;
  return high + low + (row < column ? "s" : "o");
}

function chart13Shade(value, palette) {
  const stops = palette || CHART13_PALETTE;
  const share = Math.min(1, Math.max(0, Number(value) || 0));
  for (let i = 1; i < stops.length; i += 1) {
    const [at, rgb] = stops[i];
    const [before, from] = stops[i - 1];
    if (share <= at || i === stops.length - 1) {
      const t = at > before ? Math.min(1, Math.max(0, (share - before) / (at - before))) : 1;
      return from.map((channel, k) => Math.round(channel + t * (rgb[k] - channel)));
    }
  }
  return stops[0][1].slice();
}

function chart13Percent(value) {
  if (value === null || value === undefined || Number.isNaN(value) || value <= 0) return "-";
  if (value >= 1) return "100%";
  return Math.min(Math.max(100 * value, 1), 99).toFixed(0) + "%";
}

function chart13Style() {
  if (document.getElementById("chart13-style")) return;
  const style = document.createElement("style");
  style.id = "chart13-style";
  style.textContent = `
.chart13 { display: inline-grid; grid-template-columns: repeat(13, var(--chart13-cell, 2.2rem)); gap: 1px; background: #fff; border: 1px solid #c9ced4; }
.chart13-cell { height: var(--chart13-cell, 2.2rem); display: flex; flex-direction: column; justify-content: center; align-items: center; font: 600 .68rem/1.1 system-ui, sans-serif; cursor: default; }
.chart13-cell .share { font-weight: 400; font-size: .62rem; }
.chart13-title { font-weight: 600; margin: .3rem 0; }`;
  document.head.appendChild(style);
}

function drawChart13(container, frequencies, options = {}) {
  if (!Array.isArray(frequencies) || frequencies.length !== 169) {
    throw new Error(`a 13x13 chart needs 169 frequencies, got ${frequencies && frequencies.length}`);
  }
  chart13Style();
  const cellText = options.cellText || ((name, value) => chart13Percent(value));
  const tooltip = options.tooltip || ((name, value) => `${name}: ${chart13Percent(value)}`);
  const figure = document.createElement("figure");
  figure.className = "chart13-figure";
  figure.style.margin = "0";
  if (options.title) {
    const caption = document.createElement("figcaption");
    caption.className = "chart13-title";
    caption.textContent = options.title;
    figure.appendChild(caption);
  }
  const grid = document.createElement("div");
  grid.className = "chart13";
  if (options.size) grid.style.setProperty("--chart13-cell", `${options.size}px`);
  for (let row = 0; row < 13; row += 1) {
    for (let column = 0; column < 13; column += 1) {
      const value = frequencies[13 * row + column];
      const name = chart13ClassName(row, column);
      const [red, green, blue] = chart13Shade(value, options.palette);
      const dark = 0.2126 * red + 0.7152 * green + 0.0722 * blue < 128;
      const cell = document.createElement("div");
      cell.className = "chart13-cell";
      cell.dataset.class = name;
      cell.dataset.value = String(value);
      cell.title = tooltip(name, value);
      cell.style.background = `rgb(${red}, ${green}, ${blue})`;
      cell.style.color = dark ? "#fff" : "#111";
      const label = document.createElement("span");
      label.textContent = name;
      const share = document.createElement("span");
      share.className = "share";
      share.textContent = cellText(name, value);
      cell.append(label, share);
      grid.appendChild(cell);
    }
  }
  figure.appendChild(grid);
  container.replaceChildren(figure);
  return grid;
}
