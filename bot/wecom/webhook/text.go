package webhook

import "fmt"

// What the webhook channel says on a card.
const textMoreHint = "Send `/more` for the next part of the answer."

func textMoreOf(prompt string) string {
	return fmt.Sprintf("_Continuing the answer to “%s”:_\n\n", prompt)
}
