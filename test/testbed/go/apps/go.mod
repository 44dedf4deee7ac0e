module standup.invalid/testbed/apps

go 1.26.0
