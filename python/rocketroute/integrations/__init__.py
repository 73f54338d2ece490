"""rocketroute inside other RocketMQ clients: ``grpc`` makes the official Python 5.x client
(``rocketmq-python-client``) choose queues as the Java 5.x gRPC client does."""
