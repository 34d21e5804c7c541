#!/usr/bin/env node
// A Svoi Kozyri engine in Node.js (protocol 1, docs/engine-protocol.md), written
// from the protocol document alone.  It reads the position to learn its own
// trump suits and plays the legal move that spends the least: a card of its own
// suit costs 10 more than any other card, so it keeps its trumps for the end,
// and it picks up only when nothing else is legal.
// Check it with:  svoi-kozyri engine-test "node examples/engines/greedy.js"
"use strict";
const readline = require("readline");

const RANKS = "56789TJQKA";
const SEATS = "ABCD";
let best = "none";
let waitingForStop = false;

function send(line) {
  process.stdout.write(line + "\n"); // stdout of a pipe is flushed per write
}

function cost(token, ownSuits) {
  if (token === "pickup") return 1e6;
  let total = 0;
  for (const part of token.split("-")) {
    if (part === "beat" || part === "lead") continue;
    const rank = RANKS.indexOf(part[0]);
    total += ownSuits.includes(part[1]) ? 10 + rank : rank;
  }
  return total;
}

function answerStop() {
  // a "go infinite" still waiting is answered first (by "stop", or by the next
  // position, go or newhand), for the position it was given
  if (waitingForStop) send("bestmove " + best);
  waitingForStop = false;
}

function readPosition(words) {
  // keywords with one value, "pos" with nine; "legal" is always the last field,
  // so every word after it to the end of the line is a legal move
  const seat = words[words.indexOf("seat") + 1];
  const owners = words[words.indexOf("pos") + 1].split("/");
  const own = owners[SEATS.indexOf(seat)].split("+")[0]; // Besicovitch: trump+other
  const legal = words.includes("legal") ? words.slice(words.indexOf("legal") + 1) : [];
  best = "none";
  let bestCost = Infinity;
  for (const token of legal) {
    const c = cost(token, own);
    if (c < bestCost) {
      bestCost = c;
      best = token;
    }
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const words = line.trim().split(/\s+/);
  switch (words[0]) {
    case "ske":
      send("id name greedy (node)");
      send("id author an example");
      send("skeok 1");
      break;
    case "isready":
      send("readyok");
      break;
    case "newhand":
      answerStop();
      break;
    case "position":
      answerStop();
      readPosition(words);
      break;
    case "go":
      answerStop();
      if (words.includes("infinite")) waitingForStop = true;
      else send("bestmove " + best);
      break;
    case "stop":
      answerStop();
      break;
    case "quit":
      process.exit(0);
    // everything else (setoption, unknown commands) is ignored
  }
});
rl.on("close", () => process.exit(0));
