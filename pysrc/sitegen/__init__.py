"""The build pipeline that turns content/ into the static site in dist/."""
