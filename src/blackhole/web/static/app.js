"use strict";
// The page: load the deal the URL names (/?deal=pysol:837), draw its fans, solve it.
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

function cardNode(name) {
  const node = document.createElement("div");
  node.className = "card";
  if (!name) { node.classList.add("empty"); return node; }
  const suit = name.slice(-1), rank = name.slice(0, -1).replace(/^T$/, "10");
  node.textContent = rank + (SUITS[suit] || suit);
  if (suit === "H" || suit === "D") node.classList.add("red");
  node.title = name;
  return node;
}

function pile(cls, cards, label) {
  const node = document.createElement("div");
  node.className = cls;
  if (cards.length === 0) node.appendChild(cardNode(null));
  for (const card of cards) node.appendChild(cardNode(card));
  const text = document.createElement("span");
  text.className = "label";
  text.textContent = label;
  node.appendChild(text);
  return node;
}

async function ask(question, params) {
  const response = await fetch(`/api/${question}?` + new URLSearchParams(params));
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function drawDeal(deal) {
  const table = document.getElementById("table");
  table.replaceChildren();
  const moved = (deal.history || []);
  const top = moved.length ? moved[moved.length - 1] : deal.foundation;
  table.appendChild(pile("hole", top ? [top] : [], "hole"));
  deal.fans.forEach((fan, i) => table.appendChild(pile("fan", fan, `fan ${i + 1}`)));
}

function drawAnswer(found) {
  const answer = document.getElementById("answer");
  answer.replaceChildren();
  const head = document.createElement("h2");
  head.className = found.verdict;
  head.textContent = `${found.verdict} (${found.backend}/${found.solver}, ` +
    `${found.seconds.toFixed(3)} s)`;
  answer.appendChild(head);
  if (found.moves.length) {
    const list = document.createElement("ol");
    list.start = (found.moved || 0) + 1;
    for (const move of found.moves) {
      const item = document.createElement("li");
      item.textContent = `${move.card} from fan ${move.fan + 1}`;
      list.appendChild(item);
    }
    answer.appendChild(list);
  }
}

async function load(spec, timeout) {
  const status = document.getElementById("status");
  document.getElementById("answer").replaceChildren();
  status.className = "";
  try {
    status.textContent = `dealing ${spec}`;
    drawDeal(await ask("deal", { deal: spec }));
    status.textContent = `solving ${spec}`;
    drawAnswer(await ask("solve", { deal: spec, timeout: timeout }));
    status.textContent = spec;
  } catch (error) {
    status.className = "error";
    status.textContent = error.message;
  }
}

document.getElementById("pick").addEventListener("submit", (event) => {
  event.preventDefault();
  const spec = document.getElementById("deal").value.trim();
  const url = new URL(window.location);
  url.searchParams.set("deal", spec);
  window.history.pushState({}, "", url);
  load(spec, document.getElementById("timeout").value);
});

const named = new URLSearchParams(window.location.search).get("deal");
if (named) {
  document.getElementById("deal").value = named;
  load(named, document.getElementById("timeout").value);
}
