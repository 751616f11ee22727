// What the browsers the site supports offer and TypeScript's DOM library does not declare (yet): the Network
// Information API's Save-Data flag, read where it is there (Chromium) and taken as off where it is not.
interface NetworkInformation {
  readonly saveData?: boolean;
}

interface Navigator {
  readonly connection?: NetworkInformation;
}
