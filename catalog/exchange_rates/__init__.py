"""Exchange rates: dated rows with their source, from the ECB's euro reference rates or a team."""
