package metrics

import "github.com/prometheus/client_golang/prometheus"

func scheduleCounters() (runs, triggers *prometheus.CounterVec) {
	runs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wecodex_schedule_runs_total",
		Help: "Schedule slots this replica claimed, by schedule and outcome (started, caught_up, failed), and slots missed while no replica was up (missed, counted by each replica that starts).",
	}, []string{"name", "outcome"})
	triggers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wecodex_trigger_requests_total",
		Help: "POST /hooks/<name> requests answered by this replica, by trigger and result (started, unsigned, replayed, too_large, failed).",
	}, []string{"name", "result"})
	return runs, triggers
}

// ScheduleRun counts one outcome of a schedule's slot (schedule.Observer).
func (m *Metrics) ScheduleRun(name, outcome string) {
	m.scheduleRuns.WithLabelValues(name, outcome).Inc()
}

// TriggerRequest counts one trigger request by its result.
func (m *Metrics) TriggerRequest(name, result string) { m.triggers.WithLabelValues(name, result).Inc() }
