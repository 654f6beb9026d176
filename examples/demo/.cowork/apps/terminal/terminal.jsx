// The Terminal: bash in the workspace's folder on a real pseudo-terminal (cowork.stream.open),
// drawn by xterm.js. It asks consent for its argv (Always remembers it: later tabs open at once),
// hands the ticket to stream.open, and wires keys, paste, resizes and links both ways. Copy:
// select, then Ctrl+Shift+C; paste: Ctrl+Shift+V (or the browser's own paste).
import { useEffect, useRef, useState } from "react";
import { Terminal as Xterm } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { Button } from "@/components/ui/button";
import { AlertCircle, RotateCcw } from "lucide-react";

const cowork = window.cowork;
// The app's own start-up file, not the home folder's: see bashrc beside this file.
const SHELL = ["bash", "--rcfile", ".cowork/apps/terminal/bashrc"];
// How much output xterm.js may have unparsed before more waits aside, and how much of what
// waits is kept (the newest): see `show` below.
const BACKLOG = 2 * 1024 * 1024;
const TAIL = 256 * 1024;

// The 16 ANSI colours, one set per theme, each readable on its background (xterm.js's own set is
// for a dark one: its blue prompt path read dark-on-dark, its green light-on-white).
const ANSI = {
  light: {
    black: "#000000", red: "#cd3131", green: "#107c10", yellow: "#795e00",
    blue: "#0451a5", magenta: "#a626a4", cyan: "#0e7490", white: "#555555",
    brightBlack: "#666666", brightRed: "#b91c1c", brightGreen: "#15803d", brightYellow: "#8a6d00",
    brightBlue: "#1d4ed8", brightMagenta: "#9d174d", brightCyan: "#0f766e", brightWhite: "#333333",
  },
  dark: {
    black: "#000000", red: "#f14c4c", green: "#23d18b", yellow: "#e5e510",
    blue: "#3b8eea", magenta: "#d670d6", cyan: "#29b8db", white: "#e5e5e5",
    brightBlack: "#8a8a8a", brightRed: "#ff6b6b", brightGreen: "#4ade80", brightYellow: "#f5f543",
    brightBlue: "#60a5fa", brightMagenta: "#e879f9", brightCyan: "#67e8f9", brightWhite: "#ffffff",
  },
};

// xterm draws on a canvas, outside the stylesheet: it gets the theme's colours as values, read
// from an element painted with the theme's tokens (and again when the theme changes).
function colours(probe) {
  const style = getComputedStyle(probe);
  return {
    ...ANSI[document.documentElement.classList.contains("dark") ? "dark" : "light"],
    background: style.backgroundColor,
    foreground: style.color,
    cursor: style.color,
    selectionBackground: style.getPropertyValue("--terminal-selection") || "rgba(128, 128, 128, 0.35)",
  };
}

export default function Terminal() {
  const host = useRef(null);
  const probe = useRef(null);
  const [error, setError] = useState(null);
  const [ended, setEnded] = useState(undefined);
  const [session, setSession] = useState(0);

  useEffect(() => {
    const term = new Xterm({
      cursorBlink: true,
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      fontSize: 13,
      scrollback: 5000,
      theme: colours(probe.current),
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    // A link opens in the person's browser (a widget frame cannot open windows itself).
    term.loadAddon(new WebLinksAddon((event, uri) => {
      event.preventDefault();
      cowork.openExternal(uri);
    }));
    term.open(host.current);
    fit.fit();
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== "keydown" || !event.ctrlKey || !event.shiftKey) return true;
      if (event.code === "KeyC") {
        const selected = term.getSelection();
        if (selected) navigator.clipboard?.writeText(selected).catch(() => {});
        return false;
      }
      if (event.code === "KeyV") {
        navigator.clipboard?.readText().then((text) => term.paste(text)).catch(() => {});
        return false;
      }
      return true;
    });

    let stream = null;
    let gone = false;
    // Output that comes faster than xterm.js parses: past BACKLOG unparsed bytes, new chunks wait
    // aside, and only their newest TAIL bytes are kept; once xterm.js catches up, a dim line says
    // how much was not shown, then the kept tail follows (so a prompt or an answer is never lost).
    let unparsed = 0;
    const held = [];
    let heldBytes = 0;
    let skipped = 0;
    const write = (chunk) => {
      unparsed += chunk.length;
      term.write(chunk, () => {
        unparsed -= chunk.length;
        if (unparsed < BACKLOG && held.length) catchUp();
      });
    };
    const catchUp = () => {
      if (skipped) {
        const mib = (skipped / 1048576).toFixed(1);
        term.write(`\x1b[0m\r\n\x1b[2m[${mib} MiB of output not shown: it came faster than the terminal draws]\x1b[0m\r\n`);
        skipped = 0;
      }
      heldBytes = 0;
      for (const chunk of held.splice(0)) write(chunk);
    };
    const show = (chunk) => {
      if (unparsed < BACKLOG && !held.length) return write(chunk);
      held.push(chunk);
      heldBytes += chunk.length;
      while (heldBytes - held[0].length >= TAIL) {
        const dropped = held.shift();
        heldBytes -= dropped.length;
        skipped += dropped.length;
      }
    };
    (async () => {
      const value = SHELL.join(" ");
      const consent = await cowork.consent.request({
        value,
        title: "Open a terminal in this workspace?",
        body: `The Terminal app runs ${value} in ${cowork.workspaceRoot}, with your rights there.`,
        detail: 'Choose "Always allow" to open later terminals without asking.',
      });
      if (gone) return;
      if (!consent.granted) {
        setError({ name: "Denied", message: consent.message ?? "The terminal was not allowed." });
        return;
      }
      stream = await cowork.stream.open({
        argv: SHELL,
        consent: consent.ticket,
        cols: term.cols,
        rows: term.rows,
        // Acknowledged when handed over, not once parsed (onData returning xterm.js's write
        // callback as a promise): in WebKitGTK the workbench and this pane share one web process,
        // and waiting on the parse under a flood (`yes`) left the window answering nothing
        // (tests/desktop/terminal.test.mjs). What xterm.js has not parsed is bounded here instead
        // (its own cap is 50 MB: after Ctrl+C the shell's answer waited minutes behind it).
        onData: show,
        onEnd: ({ code }) => {
          // The shell is gone: no cursor blinks where nothing would read the keys.
          term.options.cursorBlink = false;
          term.options.disableStdin = true;
          setEnded(code);
        },
      });
      if (gone) return stream.close();
      term.onData((data) => stream.write(data));
      term.onResize(({ cols, rows }) => stream.resize(cols, rows));
      term.focus();
    })().catch((e) => !gone && setError(e));

    const resized = new ResizeObserver(() => fit.fit());
    resized.observe(host.current);
    const themed = new MutationObserver(() => {
      term.options.theme = colours(probe.current);
    });
    themed.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
    return () => {
      gone = true;
      resized.disconnect();
      themed.disconnect();
      stream?.close();
      term.dispose();
    };
  }, [session]);

  const restart = () => {
    setError(null);
    setEnded(undefined);
    setSession((n) => n + 1);
  };

  return (
    <div ref={probe} className="flex h-full flex-col bg-background text-foreground">
      {(error || ended !== undefined) && (
        <div role={error ? "alert" : "status"} className="flex items-center gap-2 border-b px-3 py-1.5 text-sm">
          {error && <AlertCircle className="size-4 shrink-0 text-destructive" />}
          <span className="min-w-0 flex-1">
            {error ? <><span className="font-semibold">{error.name}</span>: {error.message}</> : `The shell ended (${ended === null ? "closed" : `exit code ${ended}`}).`}
          </span>
          <Button size="sm" variant="outline" onClick={restart}><RotateCcw className="size-3.5" /> New shell</Button>
        </div>
      )}
      <div ref={host} data-testid="terminal" className="min-h-0 flex-1 p-1" />
    </div>
  );
}
