"use strict";
// The page draws what the server answers and nothing more: the layout, the legal moves
// and every verdict come from the JSON API (/api/...), which answers as the command
// line's --json does. The page only draws cards and remembers the moves played.

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const KEYS = "123456789abcdefgijklmnopqrsvwxy"; // a fan's key (t, u, h are taken)
const $ = (id) => document.getElementById(id);

const state = {
  source: null,      // {spec} or {body}: the deal as the server is given it
  played: [],        // the moves played from the deal's start (the `after` moves): a
                     // card's name, or `park:KH` for a park into the free cell
  position: null,    // the server's answer for the position now
  line: null,        // a solver's line stepped through: its moves, the moves played
                     // before it (start, base), the step k, the analysis's steps
  timer: null,       // playing the line at a speed
  solving: null,     // the AbortController of the running solve
  ask: 0,            // the newest position request (older answers are dropped)
  games: [],         // the games the server plays, and the one a spec names by default
  defaultGame: "",
  parking: false,    // Park or z: the next top card clicked, or fan key, parks
  selected: null,    // a top card clicked that only parks ({card, fan}): the cell parks it
};

// ---------------------------------------------------------------- talking to the server

function query(params) {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") out.set(key, value);
  }
  return out;
}

// One question about the deal on the page (its spec, or its pasted text as the body).
async function ask(question, params = {}, signal = undefined) {
  const source = state.source;
  const args = query({ ...params, deal: source.spec });
  const init = { signal };
  if (source.body !== undefined) Object.assign(init, { method: "POST", body: source.body });
  return fetchJson(`/api/${question}?${args}`, init);
}

async function fetchJson(url, init = {}) {
  const response = await fetch(url, init);
  let data;
  try { data = await response.json(); } catch (error) {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function after(moves) { return moves.join(" "); }

// A move of an answer as `after` reads it: a park `park:KH`, any other move its card.
function token(move) { return move.kind === "park" ? `park:${move.card}` : move.card; }

function say(text, kind = "") {
  const status = $("status");
  status.className = kind;
  status.textContent = text;
}

// ---------------------------------------------------------------- drawing

function cardText(name) {
  const suit = name.slice(-1), rank = name.slice(0, -1).replace(/^T$/, "10");
  return rank + (SUITS[suit] || suit);
}

function cardNode(name) {
  const node = document.createElement("div");
  node.className = "card";
  if (!name) { node.classList.add("empty"); return node; }
  node.textContent = cardText(name);
  const suit = name.slice(-1);
  if (suit === "H" || suit === "D") node.classList.add("red");
  node.dataset.card = name;
  node.title = name;
  return node;
}

function label(text) {
  const node = document.createElement("span");
  node.className = "label";
  node.textContent = text;
  return node;
}

// A move named by its card and where it comes from: a fan (numbered from 1), or the
// talon (no fan); a card of a layout not made of fans by its name alone; a park into
// the free cell and the cell's card by their kind, as the command line says them.
function moveText(card, fan, kind = undefined) {
  if (kind === "park") return `${cardText(card)} into the cell, from fan ${fan + 1}`;
  if (kind === "unpark") return `${cardText(card)} from the cell`;
  const fans = !state.position || Boolean(state.position.layout.fans);
  const from = fan === null ? " from the talon" : fans ? ` from fan ${fan + 1}` : "";
  return cardText(card) + from;
}

function fanKey(fan) { return fan < KEYS.length ? KEYS[fan] : ""; }

// The move the line plays next, when a line is being stepped through.
function nextOfLine() {
  const line = state.line;
  return line && line.k < line.moves.length ? line.moves[line.k] : null;
}

function draw() {
  const found = state.position;
  if (!found) return;
  const layout = found.layout;
  // the moves onto the foundation (a play or a turn), and the parks into the free cell
  const legal = new Map(found.legal.filter((move) => !move.kind)
    .map((move) => [move.card, move.fan]));
  const parks = new Map(found.legal.filter((move) => move.kind === "park")
    .map((move) => [move.card, move.fan]));
  const next = nextOfLine();

  const hole = $("hole");
  hole.replaceChildren(cardNode(layout.foundation));
  hole.appendChild(label(layout.talon ? "foundation" : "hole"));
  if (found.after.length) hole.firstChild.classList.add("last");

  const talon = $("talon");
  talon.hidden = !layout.talon;
  if (layout.talon) {
    const top = cardNode(layout.talon[0] || null);
    talon.replaceChildren(top);
    talon.appendChild(label(`talon ${layout.talon.length} (t)`));
    if (layout.talon.length && legal.has(layout.talon[0])) markPlayable(top, null);
    if (next && next.fan === null) { top.classList.add("next"); talon.classList.add("active"); }
    else talon.classList.remove("active");
  }

  drawCell(layout, found.legal.find((move) => move.kind === "unpark"), next);

  const fans = $("fans");
  fans.replaceChildren();
  fans.classList.toggle("slots", !layout.fans);
  fans.style.width = fans.style.height = "";
  if (layout.fans) drawFans(fans, layout.fans, legal, next, parks);
  else drawSlots(fans, found, legal, next);
  drawState(found);
}

// The free cell (a game with one: Worm Hole): its card, marked when it fits on the
// hole (a click plays it), or an empty place; a click on it parks the card selected.
function drawCell(layout, unpark, next) {
  const cell = $("cell");
  const has = "cell" in layout;
  cell.hidden = $("park").hidden = !has;
  if (!has) { state.parking = false; return; }
  const node = cardNode(layout.cell);
  if (unpark) node.classList.add("playable");
  cell.replaceChildren(node);
  cell.appendChild(label(`cell (${layout.parks} parked)`));
  const coming = next !== null && next.kind === "unpark";
  cell.classList.toggle("active", coming);
  if (coming) node.classList.add("next");
  $("park").setAttribute("aria-pressed", String(state.parking));
}

function drawFans(fans, layout, legal, next, parks) {
  layout.forEach((cards, fan) => {
    const node = document.createElement("div");
    node.className = "fan";
    node.dataset.fan = fan;
    if (cards.length === 0) node.appendChild(cardNode(null));
    cards.forEach((card, depth) => {
      const shown = cardNode(card);
      const top = depth === cards.length - 1;
      if (top && legal.get(card) === fan) markPlayable(shown, fan);
      else if (top && parks.get(card) === fan) markParkable(shown, fan);
      if (state.selected && state.selected.card === card) shown.classList.add("selected");
      node.appendChild(shown);
    });
    const key = fanKey(fan);
    // a fan is named by its number, and by its key where that differs
    const name = `${fan + 1}`;
    node.appendChild(label(key && key !== name ? `${name} (${key})` : name));
    if (next && next.fan === fan) {
      node.classList.add("active");
      const top = node.querySelector(`[data-card="${next.card}"]`);
      if (top) top.classList.add("next");
    }
    fans.appendChild(node);
  });
}

// A layout not made of fans (peaks, a pyramid): each card at its slot's place, half a
// card across a column and half a card down a row, so each row lies over the row above
// it as on a table; a covered card is dimmed, a cleared slot left empty.
function drawSlots(box, found, legal, next) {
  const rows = Math.max(0, ...found.slots.map((slot) => slot.row)) + 1;
  box.style.width = `calc(var(--half) * ${found.columns + 1})`;
  box.style.height = `calc(var(--row-step) * ${rows - 1} + var(--card-h))`;
  for (const slot of found.slots) {
    const node = cardNode(slot.card);
    node.style.left = `calc(var(--half) * ${slot.column})`;
    node.style.top = `calc(var(--row-step) * ${slot.row})`;
    if (!slot.free) {
      node.classList.add("covered");
      node.addEventListener("click", () => say(
        `${cardText(slot.card)} is covered: the cards lying on it must go first`, "error"));
    } else if (legal.has(slot.card)) markPlayable(node, legal.get(slot.card));
    if (next && next.card === slot.card) node.classList.add("next");
    box.appendChild(node);
  }
}

// The score, the outcome, the line's buttons and where the line and its analysis stand.
function drawState(found) {
  $("score").textContent = `${found.moved} of ${found.of}`;
  $("outcome").textContent = found.outcome === "unfinished" ? "" : found.outcome;
  $("outcome").className = found.outcome;
  $("undo").disabled = state.played.length === 0;
  const line = state.line;
  $("prev").disabled = !line || line.k === 0;
  $("next").disabled = !line || line.k >= line.moves.length;
  $("play").disabled = !line || line.k >= line.moves.length;
  $("play").textContent = state.timer ? "Pause" : "Play";
  document.querySelectorAll("#line li").forEach((item, i) => {
    item.classList.toggle("done", line !== null && i < line.k);
    item.classList.toggle("current", line !== null && i === line.k);
  });
  // the analysis of the line shown follows the step too
  const analysed = line !== null && Array.isArray(line.steps);
  document.querySelectorAll("#steps li").forEach((item, i) => {
    item.classList.toggle("current", analysed && i === line.k);
  });
  // a critical move to come is marked on its card, as the analysis found it
  const step = analysed && line.k < line.steps.length ? line.steps[line.k] : null;
  const critical = step !== null && step.critical === true;
  document.querySelectorAll("#board .card.next").forEach((node) => {
    node.classList.toggle("critical", critical);
  });
  $("critical-says").textContent = critical ?
    `critical: only ${step.good} of ${step.legal} legal moves keep ${known(step.best_before)}` : "";
}

function markPlayable(node, fan) {
  node.classList.add("playable");
  clickable(node, () => topCard(node.dataset.card, fan, true));
}

// A fan's top card that does not fit the hole but may go into the free cell: a click
// selects it for the cell (or parks it, after Park or z).
function markParkable(node, fan) {
  node.classList.add("parkable");
  clickable(node, () => topCard(node.dataset.card, fan, false));
}

function clickable(node, act) {
  node.tabIndex = 0;
  node.setAttribute("role", "button");
  node.addEventListener("click", (event) => { event.stopPropagation(); act(); });
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      event.stopPropagation();
      act();
    }
  });
}

// A fan's top card clicked: parked after Park or z, else played when it fits, else
// selected for the cell.
function topCard(card, fan, fits) {
  const parks = state.position.legal.some((move) => move.kind === "park" && move.card === card);
  if (state.parking && parks) { park(card, fan); return; }
  if (fits) { playCard(card, fan); return; }
  state.selected = { card, fan };
  draw();
  say(`${cardText(card)} selected: click the cell to park it`);
}

function park(card, fan) {
  state.parking = false;
  state.selected = null;
  playCard(card, fan, "park");
}

// The cell clicked: its card onto the hole when it fits, else the card selected into it.
function cellClicked() {
  const found = state.position;
  if (!found || !("cell" in found.layout)) return;
  const unpark = found.legal.find((move) => move.kind === "unpark");
  const chosen = state.selected;
  if (unpark) { playCard(unpark.card, null, "unpark"); return; }
  if (chosen && found.legal.some((move) => move.kind === "park" && move.card === chosen.card)) {
    park(chosen.card, chosen.fan);
    return;
  }
  const cell = found.layout.cell;
  say(cell ? `${cardText(cell)} in the cell does not fit on ${cardText(found.layout.foundation)}` :
    found.legal.some((move) => move.kind === "park") ?
      "click a fan's top card first (or press z), then the cell, to park it" :
      "the cell takes no more cards in this deal", "error");
}

function toggleParking() {
  const found = state.position;
  if (!found || !("cell" in found.layout)) return;
  if (!state.parking && !found.legal.some((move) => move.kind === "park")) {
    say(found.layout.cell ? `the cell holds ${cardText(found.layout.cell)}` :
      "the cell takes no more cards in this deal", "error");
    return;
  }
  state.parking = !state.parking;
  state.selected = null;
  draw();
  say(state.parking ? "park: click a fan's top card, or press its fan's key" : "no card parked");
}

// ---------------------------------------------------------------- the position

async function refresh() {
  const mine = ++state.ask;
  try {
    const found = await ask("position", { after: after(state.played) });
    if (mine !== state.ask) return;
    state.position = found;
    state.parking = false;  // a park asked for, or a card selected, is for the position
    state.selected = null;  // it was asked in
    remember();
    draw();
  } catch (error) {
    if (mine === state.ask) say(error.message, "error");
    throw error;
  }
}

// The page's address names the deal and the moves played (a position to share as a
// link: /?deal=pysol:3&after=KD+AH); a pasted deal has no such name.
function remember() {
  const url = new URL(window.location);
  if (state.source.spec === undefined) {
    url.searchParams.delete("deal");
    url.searchParams.delete("after");
  } else {
    url.searchParams.set("deal", state.source.spec);
    if (state.played.length) url.searchParams.set("after", after(state.played));
    else url.searchParams.delete("after");
  }
  window.history.replaceState({}, "", url);
}

async function open(source, shown, played = []) {
  stopPlaying();
  if (state.solving) state.solving.abort();
  state.source = source;
  state.played = played.slice();
  state.line = null;
  clearAnswer();
  say(`dealing ${shown}`);
  try {
    await refresh();
    const moved = played.length ? ` after ${played.length} move(s)` : "";
    say(`${state.position.title}: ${shown}${moved}`);
    $("board").dataset.ready = "true";
  } catch (error) { /* said */ }
}

async function playCard(card, fan, kind = undefined) {
  if (!state.position) return;
  const next = nextOfLine();
  const move = token({ card, kind });
  if (next && token(next) === move) state.line.k += 1;
  else if (state.line) { state.line = null; markLineGone(); }
  stopPlaying();
  state.parking = false;
  state.selected = null;
  state.played.push(move);
  try { await refresh(); } catch (error) { state.played.pop(); return; }
  say(`${kind === "park" ? "parked" : "played"} ${moveText(card, fan, kind)}`);
  if ($("coach").checked) coach();
}

// A move of `state.played` (a card, or `park:KH`) as the page says it.
function playedText(move) {
  return move.startsWith("park:") ? `the park of ${cardText(move.slice(5))}` : cardText(move);
}

async function undo() {
  if (!state.played.length) return;
  stopPlaying();
  state.parking = false;
  state.selected = null;
  const card = state.played.pop();
  if (state.line && state.line.k > 0 && state.played.length === state.line.base + state.line.k - 1) {
    state.line.k -= 1;
  } else if (state.line) { state.line = null; markLineGone(); }
  try { await refresh(); } catch (error) { return; }
  say(`took back ${playedText(card)}`);
  if ($("coach").checked) coach();
}

async function restart() {
  stopPlaying();
  state.played = [];
  if (state.line && state.line.base === 0) state.line.k = 0; // the line starts here
  else if (state.line) { state.line = null; markLineGone(); }
  await refresh();
  say("back to the deal's start");
}

// ---------------------------------------------------------------- a solver's line

function stepTo(k) {
  const line = state.line;
  if (!line) return;
  line.k = Math.max(0, Math.min(k, line.moves.length));
  state.played = line.start.concat(line.moves.slice(0, line.k).map(token));
  return refresh().catch(() => stopPlaying());
}

function stopPlaying() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
  if (state.position) $("play").textContent = "Play";
}

function togglePlay() {
  if (state.timer) { stopPlaying(); return; }
  const line = state.line;
  if (!line) return;
  state.timer = setInterval(() => {
    if (!state.line || state.line.k >= state.line.moves.length) { stopPlaying(); draw(); return; }
    stepTo(state.line.k + 1);
  }, Number($("speed").value));
  draw();
}

function showLine(moves, kind) {
  state.line = { moves, start: state.played.slice(), base: state.played.length, k: 0, kind };
  const list = $("line");
  list.replaceChildren();
  list.start = (state.position ? state.position.made : 0) + 1;  // talon turns are moves
  moves.forEach((move, i) => {
    const item = document.createElement("li");
    item.textContent = moveText(move.card, move.fan, move.kind);
    item.dataset.card = move.card;
    item.addEventListener("click", () => { stopPlaying(); stepTo(i + 1); });
    list.appendChild(item);
  });
  draw();
}

function markLineGone() {
  document.querySelectorAll("#line li").forEach((item) => item.classList.remove("current"));
  $("line").classList.add("stale");
}

// ---------------------------------------------------------------- answers

function clearAnswer() {
  $("verdict").textContent = "";
  $("verdict").className = "";
  $("details").textContent = "";
  $("line").replaceChildren();
  $("line").classList.remove("stale");
  $("analysis").replaceChildren();
  $("certify-box").hidden = true;
  $("coach-says").textContent = "";
}

function seconds(value) { return `${Number(value).toFixed(3)} s`; }

function solveParams() {
  return { backend: $("engine").value, timeout: $("timeout").value, after: after(state.played) };
}

async function solve() {
  if (!state.source) return;
  stopPlaying();
  if (state.solving) state.solving.abort();
  const control = new AbortController();
  state.solving = control;
  $("stop").disabled = false;
  clearAnswer();
  const params = solveParams();
  const whence = state.played.length ? ` after ${state.played.length} move(s)` : "";
  say(`solving with ${params.backend}${whence}`);
  try {
    const found = await ask("solve", params, control.signal);
    const head = $("verdict");
    head.className = found.verdict;
    head.textContent = found.verdict;
    $("details").textContent = `answered by ${found.backend}/${found.solver} in ` +
      `${seconds(found.seconds)}`;
    if (found.verdict === "solved") {
      showLine(found.moves, "win");
      say("solved: step through the winning line, or play it yourself");
    } else if (found.verdict === "unsolvable") {
      offerCertificate(params);
      say("unsolvable: finding the best score");
      await lost(params, control.signal);
    } else {
      say("unknown: the limit came first (raise it, or try another engine)");
    }
  } catch (error) {
    if (error.name === "AbortError") say("stopped", "error");
    else say(error.message, "error");
  } finally {
    if (state.solving === control) { state.solving = null; $("stop").disabled = true; }
  }
}

// For a lost deal: the best score with its line, then the analysis of a best line.
async function lost(params, signal) {
  const best = await ask("best", { timeout: params.timeout, after: params.after }, signal);
  const score = best.proven ? `${best.best} of ${best.of}` :
    `? of ${best.of} (a line of ${best.best} found, at most ${best.upper_bound})`;
  $("details").textContent += `; best score ${score} by ${best.backend}/${best.solver}`;
  $("verdict").textContent = `unsolvable: best ${score}`;
  showLine(best.moves, "best");
  say(`best score ${score}: analysing its line`);
  const shown = state.line;
  const found = await analyzeNow(signal, params, after(best.moves.map(token)));
  if (state.line === shown) { shown.steps = found.steps; draw(); }
}

// The analysis of a line from the position (`line`), or of a best line when none is given.
async function analyzeNow(signal, params = solveParams(), line = undefined) {
  const found = await ask("analyze", { timeout: params.timeout, after: params.after, line },
                          signal);
  drawAnalysis(found);
  say(`analysed in ${seconds(found.seconds)}`);
  return found;
}

function known(value) { return value === null || value === undefined ? "?" : value; }

// The analysis as the command line prints it: CRITICAL, LOSES, and "?" where unproven.
function drawAnalysis(found) {
  const box = $("analysis");
  box.replaceChildren();
  const head = document.createElement("h3");
  const best = found.proven || found.best !== null ? `${known(found.best)} of ${found.of}` :
    `? of ${found.of} (a line of ${found.found} found, at most ${found.upper_bound})`;
  head.textContent = `Analysis: best from here ${best}`;
  box.appendChild(head);
  const list = document.createElement("ol");
  list.id = "steps";
  list.start = found.steps.length ? found.steps[0].move : 1;
  for (const step of found.steps) {
    const item = document.createElement("li");
    item.textContent = `${moveText(step.card, step.fan, step.kind)}: ` +
      `${known(step.good)} of ${step.legal} legal move(s) keep ${known(step.best_before)}`;
    const marks = [];
    if (step.critical === true) marks.push(["CRITICAL", "critical"]);
    else if (step.critical === null) marks.push(["critical ?", "unproven"]);
    if (step.loses === true) marks.push([`LOSES: best now ${known(step.best_after)}`, "loses"]);
    else if (step.loses === null) marks.push(["loses ?", "unproven"]);
    for (const [text, kind] of marks) {
      const mark = document.createElement("span");
      mark.className = `mark ${kind}`;
      mark.textContent = text;
      item.appendChild(mark);
      item.classList.add(kind);
    }
    list.appendChild(item);
  }
  box.appendChild(list);
  const loss = found.first_loss;
  const first = !found.first_loss_known ? "unknown (limit reached)" : loss === null ? "none" :
    `move ${loss.move} (${loss.kind ? moveText(loss.card, loss.fan, loss.kind) :
      cardText(loss.card)}), best ${known(loss.best_before)} to ` +
    `${known(loss.best_after)}`;
  const unknown = found.critical_unknown ? ` (${found.critical_unknown} unknown: limit reached)` : "";
  const summary = document.createElement("p");
  summary.id = "analysis-summary";
  summary.textContent = `${found.critical} critical move(s)${unknown}; first move that ` +
    `loses: ${first}; the line ends at ${found.score} of ${found.of}`;
  box.appendChild(summary);
}

// The certificate's link: the zip is fetched (a pasted deal goes as the body) and saved;
// an answer that is no zip (the limit came first, an error) is said instead.
function offerCertificate(params) {
  const link = $("certify");
  const source = state.source;
  const args = query({ deal: source.spec, after: params.after, timeout: $("timeout").max });
  link.href = `/api/certify?${args}`;
  link.onclick = async (event) => {
    event.preventDefault();
    say("certifying: proving it and checking the proof");
    try {
      const init = source.body !== undefined ? { method: "POST", body: source.body } : {};
      const response = await fetch(link.href, init);
      if ((response.headers.get("content-type") || "") !== "application/zip") {
        const data = await response.json();
        throw new Error(data.error || `certify: ${data.verdict} (${data.reason})`);
      }
      const named = /filename="([^"]+)"/.exec(response.headers.get("content-disposition"));
      const url = URL.createObjectURL(await response.blob());
      const save = document.createElement("a");
      save.href = url;
      save.download = named ? named[1] : "certificate.zip";
      document.body.appendChild(save);
      save.click();
      save.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      say(`saved ${save.download}: unzip it and run blackhole verify on its folder`);
    } catch (error) { say(error.message, "error"); }
  };
  $("certify-box").hidden = false;
}

async function hint() {
  if (!state.source) return;
  say("asking for a hint");
  try {
    const found = await ask("hint", { timeout: $("timeout").value, after: after(state.played) });
    if (!found.moves.length) { say("no move is left"); return; }
    const top = Math.max(...found.moves.map((move) => move.found));
    const good = found.moves.filter((move) => move.found === top);
    document.querySelectorAll(".card.hinted").forEach((node) => node.classList.remove("hinted"));
    for (const move of good) {
      const node = document.querySelector(`#board [data-card="${move.card}"]`);
      if (node) node.classList.add("hinted");
    }
    // a park or the cell's card said as such; a play or a turn by its card
    const names = good.map((move) => (move.kind === "park" ? "park " : "") +
      (move.kind ? moveText(move.card, move.fan, move.kind) : cardText(move.card)))
      .join(" or ");
    const verdict = found.winnable === true ? "wins" : found.winnable === false ?
      `best ${known(found.best)} of ${found.of}` : `best ? of ${found.of}`;
    say(`hint: ${names} (${verdict}${found.proven ? "" : ", not proven: limit reached"})`);
  } catch (error) { say(error.message, "error"); }
}

// The coach: after each move, whether the position can still be won.
async function coach() {
  const says = $("coach-says");
  try {
    const found = await ask("hint", { timeout: 5, after: after(state.played) });
    says.className = found.winnable === false ? "loses" : "";
    says.textContent = found.moves.length === 0 ? "" :
      found.winnable === true ? `coach: still winnable` :
      found.winnable === false ? `coach: lost from here; best ${known(found.best)} of ${found.of}` :
      "coach: not sure (limit reached)";
  } catch (error) { says.textContent = `coach: ${error.message}`; }
}

// ---------------------------------------------------------------- picking a deal

function gameSuffix() {
  const game = $("game").value;
  return game && game !== state.defaultGame ? `:${game}` : "";
}

let atlasTimer = null;
function atlasSoon() {
  clearTimeout(atlasTimer);
  atlasTimer = setTimeout(atlas, 120);
}

async function atlas() {
  const number = $("number").value.trim();
  const out = $("atlas");
  const game = state.games.find((one) => one.name === $("game").value);
  if (!number || !game) { out.textContent = ""; return; }
  if (!game.atlas) { out.className = ""; out.textContent = "no atlas for this game yet"; return; }
  const spec = `pysol:${number}${gameSuffix()}`;
  try {
    const found = await fetchJson(`/api/atlas?${query({ deal: spec })}`);
    if ($("number").value.trim() !== number) return;
    out.className = found.won === true ? "solved" : found.won === false ? "unsolvable" : "unknown";
    out.textContent = found.won === true ? `atlas: won (${found.best} of ${found.of})` :
      found.won === false ? `atlas: lost, best ${known(found.best)} of ${found.of}` :
      "atlas: not known";
  } catch (error) { out.className = "error"; out.textContent = error.message; }
}

function showSpec(spec) {
  const match = /^pysol:(\d+)(?::([a-z-]+))?$/.exec(spec.trim());
  if (match) {
    $("number").value = match[1];
    $("game").value = match[2] || state.defaultGame;
    atlas();
  }
}

function keyPressed(event) {
  // keys typed in a form, or in the panel entering a deal, are not moves of the game
  if (event.target.closest("input, textarea, select, #entry") || event.ctrlKey ||
      event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  if (key === "u" || key === "backspace") { event.preventDefault(); undo(); return; }
  if (key === "h") { hint(); return; }
  if (key === "z") { toggleParking(); return; }
  if (key === "0") { cellClicked(); return; }
  if (key === "arrowright") { $("next").click(); return; }
  if (key === "arrowleft") { $("prev").click(); return; }
  if (!state.position) return;
  let fan = KEYS.indexOf(key);
  if (key === "t") fan = null;
  else if (fan < 0) return;
  if (state.parking) {  // after Park or z: that fan's top card into the cell
    const parked = state.position.legal.find((one) => one.kind === "park" && one.fan === fan);
    if (parked) park(parked.card, parked.fan);
    else say(`fan ${fan + 1} has no card to park`, "error");
    return;
  }
  const move = state.position.legal.find((one) => one.fan === fan && !one.kind);
  if (move) playCard(move.card, move.fan);
}

async function start() {
  try {
    const known = await fetchJson("/api/games");
    state.games = known.games;
    state.defaultGame = known.default;
    for (const game of known.games.filter((one) => one.pysol)) {
      $("game").appendChild(new Option(game.title, game.name));
    }
    for (const engine of known.engines) $("engine").appendChild(new Option(engine, engine));
    $("timeout").max = known.timeout;
  } catch (error) { say(error.message, "error"); return; }

  $("pick-number").addEventListener("submit", (event) => {
    event.preventDefault();
    const spec = `pysol:${$("number").value.trim()}${gameSuffix()}`;
    open({ spec }, spec);
  });
  $("number").addEventListener("input", atlasSoon);
  $("game").addEventListener("change", atlasSoon);
  $("pick-seed").addEventListener("submit", (event) => {
    event.preventDefault();
    let seed = $("seed").value.trim();
    if (!seed) seed = String(Math.floor(Math.random() * 1e9));
    const spec = `random:${seed}${gameSuffix()}`;
    open({ spec }, spec);
  });
  $("pick-paste").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("paste").value;
    if (!text.trim()) { say("paste a board or a JSON deal first", "error"); return; }
    open({ body: text }, "the pasted deal");
  });
  $("solver").addEventListener("submit", (event) => { event.preventDefault(); solve(); });
  $("stop").addEventListener("click", () => { if (state.solving) state.solving.abort(); });
  $("analyze").addEventListener("click", async () => {
    if (!state.source) return;
    say("analysing");
    try { await analyzeNow(undefined); } catch (error) { say(error.message, "error"); }
  });
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", hint);
  $("park").addEventListener("click", toggleParking);
  $("cell").addEventListener("click", cellClicked);
  $("restart").addEventListener("click", restart);
  $("prev").addEventListener("click", () => { stopPlaying(); if (state.line) stepTo(state.line.k - 1); });
  $("next").addEventListener("click", () => { stopPlaying(); if (state.line) stepTo(state.line.k + 1); });
  $("play").addEventListener("click", togglePlay);
  document.addEventListener("keydown", keyPressed);
  window.addEventListener("pagehide", () => { if (state.solving) state.solving.abort(); });

  const address = new URLSearchParams(window.location.search);
  const spec = address.get("deal") || `pysol:${$("number").value}`;
  const played = (address.get("after") || "").split(/[\s,]+/).filter(Boolean);
  showSpec(spec);
  await open({ spec }, spec, played);
}

start();
