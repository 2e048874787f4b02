module pilot.example/networkclient

go 1.22
