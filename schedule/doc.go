// Package schedule starts turns nobody typed: schedules (the YAML's
// schedules: and those made with /schedule in a chat) fire on their cron
// slots, and triggers (POST /hooks/<name>, signed with HMAC-SHA256) fire on
// a request. Every replica runs the scheduler; each slot is claimed in the
// shared store, so it starts one turn however replicas come and go. What a
// fire starts is a Turn handed to a Starter (the engine's push intake),
// which queues it behind the conversation's running turn like any message.
package schedule
