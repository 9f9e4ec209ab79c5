#!/bin/sh
# e2e_signals.sh - issue 10: the terminal is given back on every signal, q and
# signals act at once during a long recompute (or tokenizing), and pasted text
# is text. Runs the real binary in a private tmux server (tests/support/lib.sh).
. tests/support/lib.sh

EN="the cat sat on the mat because the cat was tired"

# After attnviz ends, the wrapper prints the terminal modes the shell got back.
# (Ctrl-C and Ctrl-\ go to the whole foreground group: the wrapper shell
# catches them, so it lives on; attnviz gets them with their default action.)
cat >"$TMP/run.sh" <<'EOF'
trap : INT QUIT
"$@"
rc=$?
printf 'STTY:'; stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo|isig)' | tr '\n' ' '; echo
echo "EXITED rc=$rc"
sleep 600
EOF
# The modes tmux sees in the pane: alternate screen, keypad, mouse, cursor.
modes() { tmx display-message -p 'alt=#{alternate_on} keypad=#{keypad_flag} kcursor=#{keypad_cursor_flag} mouse=#{mouse_any_flag} cursor=#{cursor_flag}'; }
app_pid() { pgrep -P "$(tmx display-message -p '#{pane_pid}')" -f "$ATTNVIZ" | head -1; }
# tmx_start runs "env VARS cmd; echo EXITED..."; ours prints its own EXITED.
start_wrapped() { # W H -- args...
    w=$1 h=$2; shift 3
    tmx_stop
    TMUX_N=$((TMUX_N + 1))
    TMUX_SOCK="attnviz-e2e-$$-$TMUX_N"
    ATTNVIZ_E2E_SERVER=$TMUX_SOCK tmx -u new-session -d -x "$w" -y "$h" "env LC_ALL=C.UTF-8 sh $TMP/run.sh $*"
}
expect_restored() { # name
    tmx_wait "STTY:" || { fail "$1: no STTY line"; tmx_screen; return; }
    scr=$(tmx_screen)
    expect_contains "$1: icanon back" "$scr" " icanon"
    expect_contains "$1: echo back" "$scr" " echo"
    expect_not_contains "$1: no -icanon" "$scr" "-icanon"
    expect_not_contains "$1: no -echo" "$scr" "-echo "
    expect_contains "$1: modes" "$(modes)" "alt=0 keypad=0 kcursor=0 mouse=0 cursor=1"
    expect_not_contains "$1: app screen gone" "$scr" "seed=777"
}

# --- the app sets the modes we then expect to be undone
start_wrapped 80 24 -- "$ATTNVIZ" --seed 777 "'$EN'"
tmx_expect "modes start" "seed=777" ""
expect_contains "modes on while running" "$(modes)" "alt=1 keypad=1"
tmx send-keys q
tmx_expect "q exits" "EXITED rc=0" ""
expect_restored "q"
tmx_stop

# --- Ctrl-\ (SIGQUIT from the terminal) and kill -QUIT: restored, status 131
start_wrapped 80 24 -- "$ATTNVIZ" --seed 777 "'$EN'"
tmx_expect "C-\\ start" "seed=777" ""
tmx send-keys 'C-\'
tmx_expect "C-\\ exits 131" "EXITED rc=131" ""
expect_restored "C-\\"
tmx_stop
# Starts attnviz, sends it the signal, waits for its end.
signal_run() { # SIG
    start_wrapped 80 24 -- "$ATTNVIZ" --seed 777 "'$EN'"
    tmx_expect "SIG$1 start" "seed=777" ""
    pid=$(app_pid)
    [ -n "$pid" ] && kill -"$1" "$pid"
    tmx_expect "SIG$1 exits" "EXITED rc=" ""
}
for sig in QUIT INT TERM HUP; do
    signal_run "$sig"
    expect_restored "SIG$sig"
    tmx_stop
done

# --- signals whose default would kill attnviz in curses mode are ignored
start_wrapped 80 24 -- "$ATTNVIZ" --seed 777 "'$EN'"
tmx_expect "ignored start" "seed=777" ""
pid=$(app_pid)
for sig in USR1 USR2 ALRM PIPE; do [ -n "$pid" ] && kill -"$sig" "$pid"; done
sleep 0.3
tmx_expect "ignored signals: still running" "seed=777" ""
expect_not_contains "ignored signals: not exited" "$(tmx_screen)" "EXITED"
tmx_expect "ignored signals: keys work" "mask=window" m
tmx send-keys q
tmx_expect "ignored signals: q" "EXITED rc=0" ""
expect_restored "after ignored signals"
tmx_stop

# --- fatal signals: the terminal is restored, then the signal does what it
# does (a core dump's status; a sanitizer build reports first)
for sig in SEGV ABRT BUS FPE; do
    signal_run "$sig"
    case $(tmx_screen) in *"EXITED rc=0"*) fail "SIG$sig: exit status 0" ;; *) pass ;; esac
    expect_restored "SIG$sig"
    tmx_stop
done

# --- a fault on a pool worker (a thread that blocks the other signals): the
# handler runs on that thread, the terminal is given back, then the default
# action (a worker that blocked the faults too left the terminal in curses
# mode: a fault there skipped the handler). The fault is the kernel's kind,
# sent to that one thread (tgkill; kill(1) sends to the process, which the
# main thread takes).
tgkill() { # PID TID SIGNAME
    /usr/bin/python3 -c 'import ctypes, platform, signal, sys
nr = {"x86_64": 234, "aarch64": 131}[platform.machine()]
pid, tid, sig = int(sys.argv[1]), int(sys.argv[2]), signal.Signals["SIG" + sys.argv[3]]
sys.exit(0 if ctypes.CDLL(None).syscall(nr, pid, tid, int(sig)) == 0 else 1)' "$@"
}
pool_thread() { # PID: a thread of the pool
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = attnviz-pool ] && { basename "$t"; return; }
    done
}
need_python && for sig in SEGV BUS FPE ILL; do
    start_wrapped 80 24 -- "$ATTNVIZ" --threads 2 --seed 777 "'$EN'"
    tmx_expect "worker SIG$sig: start" "seed=777" ""
    pid=$(app_pid)
    tid=$(pool_thread "$pid")
    [ -n "$tid" ] && [ "$tid" != "$pid" ] && pass || fail "worker SIG$sig: no attnviz-pool thread in /proc/$pid/task"
    [ -n "$tid" ] && tgkill "$pid" "$tid" "$sig"
    tmx_expect "worker SIG$sig: exits" "EXITED rc=" ""
    case $(tmx_screen) in *"EXITED rc=0"*) fail "worker SIG$sig: exit status 0" ;; *) pass ;; esac
    expect_restored "worker SIG$sig"
    tmx_stop
done

# --- a model file cut short in place while attnviz shows it (llama2.c's
# export.py and cp rewrite the file they write): the next recompute says so
# in one line, exit status 2, the terminal given back (it died of SIGBUS in
# curses mode). A llama2.c checkpoint, and a Hugging Face folder.
truncated_run() { # name file text key -- attnviz args... (tmx_expect sets name and text)
    tr_name=$1 tr_file=$2 tr_text=$3 tr_key=$4
    shift 5
    start_wrapped 200 30 -- "$ATTNVIZ" "$@"
    tmx_expect "$tr_name: start" "$tr_text" ""
    : >"$tr_file"
    tmx send-keys "$tr_key"
    tmx_expect "$tr_name: exits 2" "EXITED rc=2" ""
    expect_contains "$tr_name: message" "$(tmx_screen)" "attnviz: $tr_file: the model file changed while in use (now 0 bytes,"
    expect_restored "$tr_name"
    tmx_stop
}
if model_need stories260K.bin tok512.bin; then
    cp "$MODEL" "$TMP/cut.bin" && chmod u+w "$TMP/cut.bin"
    cp "$MODELS/tok512.bin" "$TMP/tok512.bin"
    truncated_run "llama2.c truncated" "$TMP/cut.bin" "model=cut" m -- --model "$TMP/cut.bin" --vocab "$TMP/tok512.bin" "'Lily saw a cat'"
fi
if need_numpy; then
    /usr/bin/python3 tests/support/hf_fixture.py write "$TMP/hf" gpt2
    truncated_run "safetensors truncated" "$TMP/hf/model.safetensors" "model=hf" m -- --model "$TMP/hf" "'Mary saw a cat'"
fi

# --- q, Ctrl-C and SIGTERM during a recompute of several seconds (additive
# scores on 4096 tokens) act at once: the pass is cancelled. The bound is
# far below the recompute's own time (seconds, more under sanitizers).
awk 'BEGIN { for (i = 0; i < 4096; i++) printf "w%d ", i; print "" }' >"$TMP/t4096.txt"
# Seconds until the pane shows EXITED (at most 10).
seconds_to_exit() {
    i=0
    while [ $i -lt 200 ]; do
        case $(tmx_screen) in *"EXITED rc="*) echo $((i / 20)); return ;; esac
        sleep 0.05; i=$((i + 1))
    done
    echo 99
}
for how in q C-c TERM; do
    start_wrapped 100 30 -- "$ATTNVIZ" -f "$TMP/t4096.txt" -H 1 -k 24 --score additive
    tmx_expect "slow ($how): computing" "computing" ""
    sleep 0.3
    case $how in
    TERM) pid=$(app_pid); [ -n "$pid" ] && kill -TERM "$pid" ;;
    *) tmx send-keys "$how" ;;
    esac
    s=$(seconds_to_exit)
    [ "$s" -le 2 ] && pass || fail "slow ($how): took ${s} s to quit"
    case $how in
    q) tmx_expect "slow (q): status 0" "EXITED rc=0" "" ;;
    C-c) tmx_expect "slow (C-c): status 130" "EXITED rc=130" "" ;;
    TERM) tmx_expect "slow (TERM): status 143" "EXITED rc=143" "" ;;
    esac
    expect_restored "slow ($how)"
    tmx_stop
done

# --- q and Ctrl-C while the model loads (a safetensors header of a million
# tensors: seconds to open; q waited for the first frame): attnviz quits at
# once, the terminal as it was (line mode, echo). The keys typed meanwhile
# are the first frame's.
if need_numpy; then
    /usr/bin/python3 tests/support/hf_fixture.py many "$TMP/many" 1000000
    for how in q C-c; do
        start_wrapped 100 30 -- "$ATTNVIZ" --model "$TMP/many" "'Mary saw'"
        sleep 0.3
        tmx send-keys "$how"
        s=$(seconds_to_exit)
        [ "$s" -le 2 ] && pass || fail "loading ($how): took ${s} s to quit"
        case $how in
        q) tmx_expect "loading (q): status 0" "EXITED rc=0" "" ;;
        C-c) tmx_expect "loading (C-c): status 130" "EXITED rc=130" "" ;;
        esac
        expect_restored "loading ($how)"
        expect_not_contains "loading ($how): no message" "$(tmx_screen)" "attnviz:"
        tmx_stop
    done
    start_wrapped 100 30 -- "$ATTNVIZ" --model "$TMP/many" "'Mary saw'"
    sleep 0.3
    tmx send-keys m Down Enter # (Down in the terminal's normal cursor mode: curses is not up yet)
    rounds=0 # (the load takes seconds, a minute under the sanitizers; tmx_wait uses i)
    until tmx_wait "query 1" || [ $rounds -ge 24 ]; do rounds=$((rounds + 1)); done
    tmx_expect "loading: keys typed meanwhile are the first frame's (Down, Enter: the cell page)" \
        "cell arithmetic  head 1/4  query 1" ""
    expect_contains "loading: and m before them" "$(tmx_screen)" "window:3"
    tmx send-keys Escape
    tmx send-keys q
    tmx_expect "loading: then q" "EXITED rc=0" ""
    tmx_stop
fi

# --- a pattern that backtracks catastrophically, pasted into the sentence
# prompt: "computing…", then the budget's message; the sentence stays. And q
# while it tokenizes quits at once.
awk 'BEGIN { for (i = 0; i < 200; i++) printf "aaaaaaaaaaaaaaaaaaaab"; }' >"$TMP/runs.txt"
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --pattern "'(?:(a+)+c)?|\\S'" "'one two three'"
tmx_expect "budget: start" "11 tokens" ""
tmx send-keys e C-u
tmx set-buffer -- "$(cat "$TMP/runs.txt")"
tmx paste-buffer -p
sleep 0.2
tmx send-keys Enter
tmx_expect "budget: computing" "computing" ""
i=0
while [ $i -lt 100 ]; do
    case $(tmx_screen) in *"backtracks too much"*) break ;; esac
    sleep 0.05; i=$((i + 1))
done
scr=$(tmx_screen)
expect_contains "budget: message" "$scr" "backtracks too much"
expect_contains "budget: sentence stays" "$scr" "11 tokens"
tmx send-keys q
tmx_expect "budget: q" "EXITED rc=0" ""
tmx_stop

tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" --pattern "'(?:(a+)+c)?|\\S'" "'one two three'"
tmx_expect "budget q: start" "11 tokens" ""
tmx send-keys e C-u
tmx set-buffer -- "$(cat "$TMP/runs.txt")"
tmx paste-buffer -p
sleep 0.2
tmx send-keys Enter
tmx_expect "budget q: computing" "computing" ""
tmx send-keys q
# (tokenizing would go on for its whole 2 s budget; the bound is as above)
s=$(seconds_to_exit)
[ "$s" -le 1 ] && pass || fail "budget q: q took ${s} s to quit while tokenizing"
tmx_expect "budget q: status 0" "EXITED rc=0" ""
tmx_stop

# --- bracketed paste: ESC, CR and the rest of a paste are text in the prompt,
# never keys (an ESC used to cancel the prompt and run the rest as keys)
tmx_start 100 30 LC_ALL=C.UTF-8 -- "$ATTNVIZ" "'one two three'"
tmx_expect "paste: start" "3 tokens" ""
tmx send-keys e C-u
tmx set-buffer -- "$(printf 'alpha \033beta mq gamma')"
tmx paste-buffer -p
tmx_expect "paste: ESC shown escaped in the prompt" 'alpha \x1B' ""
expect_not_contains "paste: the prompt stays open" "$(tmx_screen)" "cancelled"
tmx send-keys Enter
tmx_expect "paste: sentence taken" "tokens" ""
scr=$(tmx_screen)
expect_contains "paste: m was text, not the mask key" "$scr" "mask=causal"
expect_contains "paste: the pasted words are tokens" "$scr" "gamma"
# Outside a prompt a paste runs no keys.
tmx set-buffer -- "mmq"
tmx paste-buffer -p
tmx_expect "paste outside a prompt: ignored" "pasted text ignored" ""
expect_contains "paste outside a prompt: no mask change" "$(tmx_screen)" "mask=causal"
tmx send-keys q
tmx_expect "paste: q" "EXITED rc=0" ""
tmx_stop

finish
