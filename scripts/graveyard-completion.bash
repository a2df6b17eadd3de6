# bash completion for graveyard: commands, then each command's flags, read
# from the binary's own help (graveyard --help, graveyard CMD --help, which
# are made from each command's table), so they never drift; files
# otherwise. Installed by make install as
# PREFIX/share/bash-completion/completions/graveyard.

_graveyard_commands() {
    "$1" --help 2>/dev/null |
        awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

_graveyard() {
    local g=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} cmd
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_graveyard_commands "$g") help" -- "$cur")
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    if [ "$cmd" = help ]; then
        [ "$COMP_CWORD" -eq 2 ] &&
            mapfile -t COMPREPLY < <(compgen -W "$(_graveyard_commands "$g")" -- "$cur")
        return 0
    fi
    case $cur in
    -*)
        mapfile -t COMPREPLY < <(compgen -W "$("$g" "$cmd" --help 2>/dev/null |
            grep -oE '^  --[a-z0-9-]+' | sed 's/^ *//') --help" -- "$cur")
        ;;
    *)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
    esac
    return 0
}
complete -o filenames -F _graveyard graveyard
