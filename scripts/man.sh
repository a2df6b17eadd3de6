#!/bin/sh
# graveyard(1) made from the binary's own help texts (every command's
# --help, which cli_help makes from its table), so the man page cannot
# drift from the program. troff on stdout.
# Usage: man.sh GRAVEYARD
set -eu
g=$1
version=$("$g" -V | sed 's/^graveyard //')

# text as troff: a backslash written \e, a line that starts with '.' or
# "'" (a request otherwise) behind \&
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

commands=$("$g" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')

cat <<EOF2
.TH GRAVEYARD 1 "" "graveyard $version" "User Commands"
.SH NAME
graveyard \\- what each smaller GGUF file of a quantization ladder gets wrong, question by question
.SH SYNOPSIS
.B graveyard
.I COMMAND
[\\fIARGS\\fR...]
.br
.B graveyard help
.I COMMAND
.br
.B graveyard \\-V
.SH DESCRIPTION
EOF2
"$g" --help | awk '/^commands:/ { exit } NR > 2' | esc
echo ".SH COMMANDS"
"$g" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/' |
    while read -r name summary; do
        printf '.TP\n.B %s\n%s\n' "$name" "$(printf '%s' "$summary" | esc)"
    done
for c in $commands; do
    printf '.SH "GRAVEYARD %s"\n.nf\n' "$(printf '%s' "$c" | tr a-z A-Z)"
    "$g" "$c" --help | esc
    printf '.fi\n'
done
cat <<EOF2
.SH FILES
.TP
.I PREFIX/share/graveyard
the shipped questions (data/), configs (configs/, the demo's among them),
the fake llama-server the demo runs (build/) and the documentation (docs/)
.SH SEE ALSO
The documentation in PREFIX/share/graveyard/docs, README.md first.
EOF2
