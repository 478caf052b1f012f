/** The flags a command line may carry besides its positional arguments (bin/neoflow.js parses them). */
export interface Options {
  account: string | undefined;
  scopes: string | undefined;
  rate: string | undefined;
}
