// The Python cells' editor: CodeMirror 6 with Python support, bundled by the
// build (sitegen/assets/editor_bundle.py) into assets/cell-editor.HASH.js and loaded
// by cells.js only when a reader first edits a cell.
//
// It is mounted in a shadow root: there CodeMirror's style library adopts
// constructed stylesheets, which the site's Content-Security-Policy
// (style-src 'self', no inline styles) allows, instead of adding <style>
// elements to the document, which it refuses. Colours come from the page's
// custom properties (they inherit into the shadow tree), so the editor
// follows the light and dark schemes like the rest of the page.

import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { bracketMatching, HighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { linesWrap, watchLinesWrap } from "../common/code-wrap.mjs";

const theme = EditorView.theme({
  "&": { color: "var(--ink)", backgroundColor: "transparent", fontSize: "0.9rem" },
  "&.cm-focused": { outline: "3px solid var(--focus)", outlineOffset: "2px" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.5", padding: "0.6rem 0" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-cursor": { borderLeftColor: "var(--ink)" },
  // Opaque, the cell's own background: code scrolled sideways passes under the line numbers, not through them.
  ".cm-gutters": { backgroundColor: "var(--paper-raised)", color: "var(--ink-soft)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--accent-soft)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--highlight)" },
  ".cm-matchingBracket": { outline: "1px solid var(--ink-soft)" },
});

// The same colours as the build's Pygments classes (css/code.css).
const highlighting = HighlightStyle.define([
  {
    tag: [tags.keyword, tags.operatorKeyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.bool, tags.null],
    color: "var(--code-keyword)",
  },
  {
    tag: [
      tags.function(tags.variableName),
      tags.function(tags.definition(tags.variableName)),
      tags.className,
      tags.standard(tags.variableName),
    ],
    color: "var(--code-name)",
  },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.number], color: "var(--code-number)" },
  { tag: [tags.comment], color: "var(--code-comment)", fontStyle: "italic" },
]);

/**
 * Mount an editor for `code` in `host` (inside a shadow root); `onRun` on Ctrl/Cmd+Enter or Shift+Enter,
 * `onChange(text)` after every edit. Tab indents; Escape then Tab leaves the editor (CodeMirror's own rule).
 */
export function mountEditor(host, code, { onRun, onChange }) {
  const root = host.attachShadow({ mode: "open" });
  // Keys typed in the editor are the editor's: the page's own shortcuts (such as "/" for search) see the
  // event retargeted to this host, a plain element, and would take them.
  host.addEventListener("keydown", (event) => event.stopPropagation());
  const run = () => {
    onRun();
    return true;
  };
  // Long lines wrap as the page's code does ("Wrap lines", or a narrow screen), and follow the reader's choice.
  const wrapping = new Compartment();
  const wrapOrNot = () => (linesWrap() ? EditorView.lineWrapping : []);
  const view = new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc: code,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        python(),
        syntaxHighlighting(highlighting),
        theme,
        EditorState.tabSize.of(4),
        // Python's (and the book's) four spaces for a block, not CodeMirror's two: mixing them raises IndentationError.
        indentUnit.of("    "),
        wrapping.of(wrapOrNot()),
        keymap.of([{ key: "Mod-Enter", run }, { key: "Shift-Enter", run }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
        // tabindex="0" changes nothing for the keyboard (a contenteditable is in the tab order already), but axe
        // counts only elements with a tabindex or a native control as focusable content, and would report the
        // scroller that holds it (scrollable-region-focusable) as out of the keyboard's reach.
        EditorView.contentAttributes.of({ "aria-label": "Python code", tabindex: "0" }),
        // Typing over a selection lets Chrome's own editing carry the replaced text's colour into a new
        // <span style="…">, which the CSP refuses (a console error, though CodeMirror redraws the line).
        // Such an edit is made here instead, as a CodeMirror transaction; composition (IME) is left alone.
        EditorView.domEventHandlers({
          beforeinput(event, editor) {
            if (event.inputType !== "insertText" || event.isComposing || event.data === null) return false;
            if (editor.state.selection.ranges.every((range) => range.empty)) return false;
            event.preventDefault();
            editor.dispatch(editor.state.replaceSelection(event.data), { scrollIntoView: true, userEvent: "input.type" });
            return true;
          },
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  const stopWatching = watchLinesWrap(() => view.dispatch({ effects: wrapping.reconfigure(wrapOrNot()) }));
  return {
    getCode: () => view.state.doc.toString(),
    focus: () => view.focus(),
    destroy: () => {
      stopWatching();
      view.destroy();
    },
    view,
  };
}
