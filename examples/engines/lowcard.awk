#!/usr/bin/awk -f
# A complete Svoi Kozyri engine in awk (protocol 1, docs/engine-protocol.md):
# it plays the legal move that spends the lowest-ranked cards, never picks up
# when it can beat, and knows nothing about the rules beyond the "legal" list
# that every position request carries.  Run it with: awk -f lowcard.awk
# Test it with:  svoi-kozyri engine-test "awk -f examples/engines/lowcard.awk"

function rank(card,    r) {            # 6..A -> 1..9 (5 is 0, T is ten)
    r = substr(card, 1, 1)
    return index("56789TJQKA", r) - 1
}

function cost(tok,    n, parts, i, c) {  # the sum of the ranks a move spends
    if (tok == "pickup") return 1000     # refuse only when nothing else is legal
    n = split(tok, parts, "-")
    c = 0
    for (i = 1; i <= n; i++)
        if (parts[i] != "beat" && parts[i] != "lead") c += rank(parts[i])
    return c
}

function answer() {                    # bestmove for the last position seen
    print "bestmove " best
    fflush()
    searching = 0
}

# a position, go or newhand while "go infinite" waits acts as stop first
($1 == "position" || $1 == "go" || $1 == "newhand") && searching { answer() }

BEGIN { best = "none"; searching = 0 }
$1 == "ske"      { print "id name lowcard (awk)"; print "id author an example"
                   print "skeok 1"; fflush(); next }
$1 == "isready"  { print "readyok"; fflush(); next }
$1 == "position" {
    best = "none"; bestcost = 1e9; inlegal = 0
    for (i = 2; i <= NF; i++) {
        if ($i == "legal") { inlegal = 1; continue }
        if (!inlegal) continue
        # legal is always the last field: every word after it is a legal move
        c = cost($i)
        if (c < bestcost) { bestcost = c; best = $i }
    }
    next
}
$1 == "go"       { infinite = 0
                   for (i = 2; i <= NF; i++) if ($i == "infinite") infinite = 1
                   if (infinite) searching = 1; else answer()
                   next }
$1 == "stop"     { if (searching) answer(); next }
$1 == "quit"     { exit 0 }
# every other line (setoption, newhand, unknown commands) is ignored
