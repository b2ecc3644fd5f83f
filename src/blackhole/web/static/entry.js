"use strict";
// The "Enter a deal" panel: a deal copied from another app, card by card. The server
// gives a game's slots in the order they are filled (/api/entry) and judges every pick
// (/api/compose): a duplicate or a token that is no card is refused with its one line,
// naming the slot. Once every slot is filled, the deal's board is opened as a pasted
// deal is, and solved. It draws with app.js's cardNode and asks with its fetchJson.

const entry = {
  layout: null,             // the server's slots of the game being entered
  cards: [],                // the cards picked, in slot order, as the server writes them
  busy: Promise.resolve(),  // picks are judged one after another, in the order made
};

function entrySay(text, kind = "") {
  const says = $("entry-says");
  says.className = kind;
  says.textContent = text;
}

function slotName(slot) { return `slot ${slot.slot} (${slot.label})`; }

// What the server says of the cards picked so far plus `more`: a refusal throws.
function compose(more, partial) {
  const cards = entry.cards.concat(more).join(" ");
  const args = query({ game: entry.layout.game, cards, partial: partial ? "true" : "false" });
  return fetchJson(`/api/compose?${args}`);
}

async function chooseGame(name) {
  entry.cards = [];
  try {
    entry.layout = await fetchJson(`/api/entry?${query({ game: name })}`);
  } catch (error) { entrySay(error.message, "error"); return; }
  drawEntry();
  entrySay(`${entry.layout.title}: ${entry.layout.slots.length} slots to fill`);
}

// Pick the cards of `text` (one or more tokens) for the next slots, in turn; the first
// the server refuses stops the rest.
function pickCards(text) {
  const tokens = text.split(/[\s,]+/).filter(Boolean);
  entry.busy = entry.busy.then(async () => {
    for (const token of tokens) {
      if (!entry.layout) return false;
      const slot = entry.layout.slots[entry.cards.length];
      try {
        const found = await compose([token], true);
        entry.cards = found.cards;
        drawEntry();
        const next = entry.layout.slots[entry.cards.length];
        entrySay(`${slotName(slot)}: ${cardText(found.cards[found.cards.length - 1])}` +
                 (next ? `; next ${slotName(next)}` : "; every slot is filled: Solve it"));
      } catch (error) { entrySay(error.message, "error"); return false; }
    }
    return true;
  });
  return entry.busy;
}

function undoPick() {
  entry.busy = entry.busy.then(() => {
    if (!entry.cards.length) return;
    const card = entry.cards.pop();
    drawEntry();
    entrySay(`took back ${cardText(card)}; next ${slotName(entry.layout.slots[entry.cards.length])}`);
  });
}

// The deal entered, opened on the page as a pasted deal is (its board in the paste box),
// then solved with the engine and limit chosen.
async function solveEntered() {
  await entry.busy;
  let found;
  try { found = await compose([], false); } catch (error) { entrySay(error.message, "error"); return; }
  $("paste").value = found.board;
  entrySay("the deal entered is open below (its board is in the paste box)");
  await open({ body: found.board }, "the deal entered");
  if (state.position) await solve();
}

// ---------------------------------------------------------------- drawing

function drawEntry() {
  const layout = entry.layout;
  const nodes = layout.slots.map((slot, i) => {
    const node = cardNode(entry.cards[i] || null);
    node.dataset.slot = slot.slot;
    node.title = slotName(slot);
    if (i === entry.cards.length) node.classList.add("filling");
    return node;
  });
  const board = $("entry-board");
  board.replaceChildren();
  const at = (pile) => layout.slots.filter((slot) => slot.pile === pile)
    .map((slot) => [slot, nodes[slot.slot - 1]]);
  const foundation = at("foundation");
  if (foundation.length) {
    const pile = document.createElement("div");
    pile.className = "pile";
    pile.append(foundation[0][1], label(foundation[0][0].label));
    board.appendChild(pile);
  }
  const tableau = at("tableau");
  board.appendChild(layout.shape === "fans" ? entryFans(tableau) : entrySlots(tableau, layout));
  const talon = at("talon");
  if (talon.length) {
    const pile = document.createElement("div");
    pile.className = "entry-talon";
    for (const [, node] of talon) pile.appendChild(node);
    pile.appendChild(label(talon[0][0].label.replace(/ card 1$/, ", the next card first")));
    board.appendChild(pile);
  }
  const used = new Set(entry.cards);
  document.querySelectorAll("#entry-grid .pick").forEach((button) => {
    button.classList.toggle("used", used.has(button.dataset.card));
  });
  const full = entry.cards.length === layout.slots.length;
  $("entry-undo").disabled = entry.cards.length === 0;
  $("entry-clear").disabled = entry.cards.length === 0;
  $("entry-solve").disabled = !full;
  $("entry-count").textContent = `${entry.cards.length} of ${layout.slots.length}`;
}

// Fans as the page draws them: each a column, its first card at the top.
function entryFans(tableau) {
  const box = document.createElement("div");
  box.className = "entry-fans";
  const fans = [];
  for (const [slot, node] of tableau) (fans[slot.column] ||= []).push([slot.row, node]);
  fans.forEach((cards, column) => {
    const fan = document.createElement("div");
    fan.className = "fan";
    cards.sort((a, b) => a[0] - b[0]).forEach(([, node]) => fan.appendChild(node));
    fan.appendChild(label(`${column + 1}`));
    box.appendChild(fan);
  });
  return box;
}

// Peaks and pyramids as the page draws them: each card at its half-card column and row.
function entrySlots(tableau, layout) {
  const box = document.createElement("div");
  box.className = "entry-slots";
  const rows = Math.max(...tableau.map(([slot]) => slot.row)) + 1;
  box.style.width = `calc(var(--half) * ${layout.columns + 1})`;
  box.style.height = `calc(var(--row-step) * ${rows - 1} + var(--card-h))`;
  for (const [slot, node] of tableau) {
    node.style.left = `calc(var(--half) * ${slot.column})`;
    node.style.top = `calc(var(--row-step) * ${slot.row})`;
    box.appendChild(node);
  }
  return box;
}

// The deck by suit and rank: a card picked is greyed, and picking it again is refused.
function drawGrid(deck) {
  const grid = $("entry-grid");
  grid.replaceChildren();
  const suits = [...new Set(deck.map((card) => card.slice(-1)))];
  for (const suit of suits) {
    const row = document.createElement("div");
    row.className = "picks";
    for (const card of deck.filter((one) => one.slice(-1) === suit)) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "pick" + (suit === "H" || suit === "D" ? " red" : "");
      button.dataset.card = card;
      button.textContent = cardText(card);
      button.addEventListener("click", () => pickCards(card));
      row.appendChild(button);
    }
    grid.appendChild(row);
  }
}

async function entryStart() {
  let known;
  try { known = await fetchJson("/api/games"); } catch (error) { entrySay(error.message, "error"); return; }
  for (const game of known.games) $("entry-game").appendChild(new Option(game.title, game.name));
  $("entry-game").value = known.default;
  $("entry-game").addEventListener("change", () => chooseGame($("entry-game").value));
  $("entry-pick").addEventListener("submit", async (event) => {
    event.preventDefault();
    const box = $("entry-card");
    if (await pickCards(box.value)) box.value = "";
  });
  $("entry-undo").addEventListener("click", undoPick);
  $("entry-clear").addEventListener("click", () => chooseGame($("entry-game").value));
  $("entry-solve").addEventListener("click", solveEntered);
  await chooseGame(known.default);
  if (entry.layout) drawGrid(entry.layout.deck);
  $("entry").dataset.ready = "true";
}

entryStart();
