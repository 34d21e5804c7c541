#!/bin/sh
# Start the awk engine with line-by-line input: mawk (Debian's default awk)
# buffers a pipe unless told -W interactive; gawk and BusyBox awk do not need it.
here=$(dirname "$0")
if awk -W version 2>/dev/null | grep -qi mawk; then
    exec awk -W interactive -f "$here/lowcard.awk"
fi
exec awk -f "$here/lowcard.awk"
