// Single-key shortcuts stay out of the way of typing: never in a text field, a lab control,
// a code editor (CodeMirror mounts in a shadow root, hence the composed path) or with a modifier.
export function isShortcutFree(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return false;
  return !event
    .composedPath()
    .some(
      (node) =>
        node instanceof HTMLElement &&
        (node.isContentEditable ||
          node.matches(
            "input, textarea, select, [role='textbox'], [role='combobox'], [role='slider'], .lab, .cm-editor, [data-code-cell]",
          )),
    );
}
