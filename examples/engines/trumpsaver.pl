#!/usr/bin/perl
# A Svoi Kozyri engine in Perl, written from docs/engine-protocol.md alone.
# It plays the legal move that spends the cheapest cards, where a card of its own
# (trump) suit costs `OwnSuitCost` more, and refuses only when it must.  It keeps
# no state between requests except the last position, is deterministic, and
# answers `go infinite` only when `stop` comes.
#   svoi-kozyri engine-test "perl examples/engines/trumpsaver.pl"
use strict;
use warnings;

$| = 1;                                   # flush every line
my %RANK = map { (qw(5 6 7 8 9 T J Q K A))[$_] => $_ } 0 .. 9;
my %COMMAND = map { $_ => 1 } qw(ske isready setoption newhand position go stop quit);
my $own_cost = 10;                        # the option OwnSuitCost
my (@legal, %own);                        # from the last position
my $waiting = 0;                          # a `go infinite` waits for `stop`

sub best_move {
    return "none" unless @legal;
    my ($best, $best_cost);
    for my $move (@legal) {
        my $cost = 0;
        if ($move eq "pickup") {
            $cost = 1000;
        } else {
            for my $card ($move =~ /-([5-9TJQKA][SHDC])/g) {   # cards are 2 characters
                my ($rank, $suit) = split //, $card;
                $cost += $RANK{$rank} + ($own{$suit} ? $own_cost : 0);
            }
        }
        ($best, $best_cost) = ($move, $cost) if !defined $best_cost || $cost < $best_cost;
    }
    return $best;
}

sub read_position {
    my @w = @_;
    my ($seat, $owners) = ("A", "");
    @legal = ();
    %own = ();
    for (my $i = 0; $i < @w; $i++) {
        if ($w[$i] eq "seat" && $i + 1 < @w) { $seat = $w[$i + 1]; }
        elsif ($w[$i] eq "pos" && $i + 1 < @w) { $owners = $w[$i + 1]; }
        elsif ($w[$i] eq "legal") {       # always the last field: moves to the end
            @legal = @w[$i + 1 .. $#w];
            last;
        }
    }
    # owners: one field per seat A B C D, `SH` (two suits) or `S+C` (trump+other)
    my @per_seat = split m{/}, $owners;
    my $mine = $per_seat[ord($seat) - ord("A")] // "";
    $mine =~ s/\+.*//;                    # Besicovitch: only the trump before `+`
    $own{$_} = 1 for split //, $mine;
}

while (my $line = <STDIN>) {
    my @w = split ' ', $line;
    shift @w while @w && !$COMMAND{$w[0]};   # read from the first known command
    next unless @w;
    my $cmd = shift @w;
    if ($waiting && $cmd =~ /^(position|go|newhand)$/) {   # acts as stop first
        $waiting = 0;
        print "bestmove ", best_move(), "\n";
    }
    if ($cmd eq "ske") {
        print "id name trumpsaver (perl)\nid author a newcomer\n";
        print "option name OwnSuitCost type spin default 10 min 0 max 50\nskeok 1\n";
    } elsif ($cmd eq "isready") {
        print "readyok\n";
    } elsif ($cmd eq "setoption") {
        my $text = join " ", @w;
        $own_cost = $1 if $text =~ /^name OwnSuitCost value (\d+)/;
    } elsif ($cmd eq "position") {
        read_position(@w);
    } elsif ($cmd eq "go") {
        if (grep { $_ eq "infinite" } @w) { $waiting = 1; }
        else { print "bestmove ", best_move(), "\n"; }
    } elsif ($cmd eq "stop") {
        if ($waiting) { $waiting = 0; print "bestmove ", best_move(), "\n"; }
    } elsif ($cmd eq "quit") {
        last;
    }
}
